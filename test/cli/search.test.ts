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
      next: "akm show stash//skills/docker-homelab"
    })
  })

  it("the text view aligns rank, score, ref, name and description", async () => {
    const r = await workspace.run(["search", "docker", "--format", "text"])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split("\n")
    expect(lines[0]).toMatch(/^1\s+\d\.\d\d\s+stash\/\/skills\/docker-homelab\s+docker-homelab\s+Deploy and manage docker compose services in a homelab$/)
    expect(lines[1]).toMatch(/^2\s+\d\.\d\d\s+stash\/\/knowledge\/docker-clean\s+Docker clean\s+Clean up unused docker images and volumes$/)
    // Columns line up: every ref starts at the same offset.
    expect(lines[0]!.indexOf("stash//")).toBe(lines[1]!.indexOf("stash//"))
    expect(r.stdout).toContain("2 of 2")
    expect(r.stdout).toContain("next: akm show stash//skills/docker-homelab")
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
    expect(await refs("docker", "--bundle", "other")).toEqual([])
    expect(await refs("docker", "--adapter", "akm", "--limit", "1")).toEqual(["stash//skills/docker-homelab"])
    expect(await refs("docker", "--filter", "project=ops")).toEqual(["stash//knowledge/docker-clean"])
    expect(await refs("commands/")).toEqual(["stash//commands/deploy"])
    expect(await refs("--belief", "all", "--include-proposed", "stash//")).toHaveLength(3)
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
