import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm search end to end (spec 04 §3, spec 09 §1): the envelope, the text view, filters, exit codes.

const stash = {
  "skills/docker-homelab/SKILL.md": "---\nname: docker-homelab\ndescription: Deploy and manage docker compose services in a homelab\ntags: [docker, homelab]\n---\n# Docker homelab\n",
  "knowledge/docker-clean.md": "---\ndescription: Clean up unused docker images and volumes\nscope_project: ops\n---\n# Docker clean\n",
  "commands/deploy.md": "---\ndescription: Deploy the app to production\n---\n# Deploy\n"
}

describe("akm search", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  beforeAll(async () => {
    const added = await workspace.run(["bundle", "add", workspace.folder("stash", stash), "--name", "stash", "--adapter", "akm"])
    expect(added.code, added.stderr).toBe(0)
  })

  it("prints the envelope with schemaVersion and the hit shape of spec 04 §3", async () => {
    const r = await workspace.run(["search", "docker", "compose", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe("")
    const result = r.json()
    expect(result).toMatchObject({ schemaVersion: 1, query: "docker compose", total: 2, stale: [], timingMs: expect.any(Number) })
    expect(result.hits[0]).toEqual({
      ref: "stash//skills/docker-homelab",
      type: "skill",
      name: "docker-homelab",
      description: "Deploy and manage docker compose services in a homelab",
      bundle: "stash",
      score: expect.any(Number),
      tokens: expect.any(Number),
      tokensEstimated: true,
      path: expect.stringMatching(/SKILL\.md$/),
      editable: true,
      why: expect.arrayContaining(["name", "description"]),
      next: "akm show stash//skills/docker-homelab",
      snippet: "Deploy and manage docker compose services in a homelab"
    })
    expect(result).not.toHaveProperty("queryTruncated")
  })

  it("the text view: per hit a line of ref, score (3 decimals) and title, then its snippet; plain when piped (issue 15 item 6)", async () => {
    const r = await workspace.run(["search", "docker", "--format", "text"])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split("\n")
    expect(lines[0]).toMatch(/^stash\/\/skills\/docker-homelab {3}\d\.\d{3} {2}docker-homelab$/)
    expect(lines[1]).toBe("  Deploy and manage docker compose services in a homelab")
    expect(lines[2]).toMatch(/^stash\/\/knowledge\/docker-clean {2}\d\.\d{3} {2}Docker clean$/)
    expect(lines[3]).toBe("  Clean up unused docker images and volumes")
    // The score column lines up.
    expect(lines[0]!.search(/\d\.\d{3}/)).toBe(lines[2]!.search(/\d\.\d{3}/))
    expect(r.stdout).not.toContain("\u001b[")
    expect(r.stdout).toContain("2 of 2")
    expect(r.stdout).toContain("next: akm show stash//skills/docker-homelab")
  })

  it("lines fit the width: COLUMNS when piped, else 100; titles and snippets are cut with …, refs never", async () => {
    const long = "word ".repeat(60).trim()
    const ws = makeWorkspace()
    try {
      const notes = ws.folder("notes", { "ops/long.md": `---\ndescription: ${long}\n---\n# A title that goes on and on well past any narrow terminal width\n\nBody.\n` })
      expect((await ws.run(["bundle", "add", notes, "--name", "notes"])).code).toBe(0)
      for (const [columns, width] of [[undefined, 100], ["50", 50], ["200", 200]] as const) {
        const r = await ws.run(["search", "word", "--format", "text"], { env: { COLUMNS: columns ?? "" } })
        const [hit, snippet] = r.stdout.split("\n")
        // One word sixty times is a keyword-stuffed text (issue 25): it ranks, with a lowered score.
        expect(hit, String(columns)).toMatch(/^notes\/\/ops\/long {2}0\.\d{3} {2}\S/)
        expect([...hit!].length, String(columns)).toBeLessThanOrEqual(width)
        expect([...snippet!].length, String(columns)).toBeLessThanOrEqual(width)
        expect(snippet!.startsWith("  word word"), String(columns)).toBe(true)
        // Cut after a whole word.
        if (width < 200) expect(snippet, String(columns)).toMatch(/ word…$/)
      }
      // A ref is never cut, however narrow the terminal.
      expect((await ws.run(["search", "word", "--format", "text"], { env: { COLUMNS: "10" } })).stdout.split("\n")[0]).toMatch(/^notes\/\/ops\/long {2}0\.\d{3}/)
      const json = (await ws.run(["search", "word", "--format", "json"])).json()
      expect(json.hits[0].snippet).toBe(`${"word ".repeat(39)}word…`)
    } finally {
      ws.cleanup()
    }
  })

  it("--format md is markdown: a numbered list of links to the items' files, with ref, score and the snippet quoted, terms in bold", async () => {
    const r = await workspace.run(["search", "docker", "--format", "md"])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split("\n")
    expect(lines[0]).toBe("## akm search docker")
    expect(lines[2]).toMatch(/^1\. \[docker-homelab\]\(<\/.*\/skills\/docker-homelab\/SKILL\.md>\) — `stash\/\/skills\/docker-homelab` · \d\.\d{3}$/)
    expect(lines[3]).toBe("   > Deploy and manage **docker** compose services in a homelab")
    expect(r.stdout).toMatch(/\n2 of 2 · [\d.]+ ms\n$/)
  })

  it("an empty result names the active filters; --type is case-insensitive", async () => {
    const typed = await workspace.run(["search", "docker", "--type", "SKILL", "--format", "json"])
    expect(typed.json().hits.map((h: { ref: string }) => h.ref)).toEqual(["stash//skills/docker-homelab"])
    const none = await workspace.run(["search", "docker", "--type", "agent", "--bundle", "stash", "--format", "text"])
    expect(none.code).toBe(0)
    expect(none.stdout.split("\n")[0]).toBe('no matches for "docker" with --type agent --bundle stash')
  })

  it("jsonl writes one line per hit; no hits is exit 0", async () => {
    const r = await workspace.run(["search", "docker", "--format", "jsonl"])
    expect(r.stdout.trim().split("\n").map((line) => JSON.parse(line).ref)).toEqual(["stash//skills/docker-homelab", "stash//knowledge/docker-clean"])
    const none = await workspace.run(["search", "docker", "--type", "no-such-type", "--format", "json"])
    expect(none.code).toBe(0)
    expect(none.json().hits).toEqual([])
    expect((await workspace.run(["search", "xyznonexistent", "--format", "text"])).stdout).toContain("no matches")
  })

  it("filters: --type, --bundle, --adapter, --filter, --limit; browse with prefix/", async () => {
    const refs = async (...args: ReadonlyArray<string>) => (await workspace.run(["search", ...args, "--format", "json"])).json().hits.map((h: { ref: string }) => h.ref)
    expect(await refs("docker", "--type", "skill")).toEqual(["stash//skills/docker-homelab"])
    const other = await workspace.run(["search", "docker", "--bundle", "other", "--format", "json"])
    expect(other.code).toBe(1)
    expect(other.error().error).toEqual({ code: "not_found", message: "no bundle named 'other'", hint: "configured bundles: stash" })
    expect(await refs("docker", "--adapter", "akm", "--limit", "1")).toEqual(["stash//skills/docker-homelab"])
    expect(await refs("docker", "--filter", "project=ops")).toEqual(["stash//knowledge/docker-clean"])
    expect(await refs("commands/")).toEqual(["stash//commands/deploy"])
    expect(await refs("--belief", "all", "--include-proposed", "stash//")).toHaveLength(3)
  })

  it("a workspace without bundles says to add one (exit 0), built index or not", async () => {
    const ws = makeWorkspace()
    try {
      for (let i = 0; i < 2; i++) {
        const text = await ws.run(["search", "docker", "--format", "text"])
        expect(text.code, text.stderr).toBe(0)
        expect(text.stdout.split("\n")[0]).toBe("no bundles yet: add one with `akm bundle add <path>`")
        expect((await ws.run(["search", "docker", "--format", "json"])).json()).toMatchObject({ hits: [], total: 0, hint: "no bundles yet: add one with `akm bundle add <path>`" })
      }
    } finally {
      ws.cleanup()
    }
  })

  it("--limit 0 is a usage error (exit 2)", async () => {
    const r = await workspace.run(["search", "docker", "--limit", "0", "--format", "json"])
    expect(r.code).toBe(2)
    expect(r.error().error.code).toBe("usage")
  })

  it("a deleted index.db is rebuilt by the next search (R-WS-2)", async () => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(join(workspace.cacheDir, `index.db${suffix}`), { force: true })
    const r = await workspace.run(["search", "deploy", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().hits[0].ref).toBe("stash//commands/deploy")
  })
})
