import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm index end to end (spec 04 §2): summary on stdout, JSON shape of docs/cli.md, exit codes, one writer at a time.

const notes = {
  "index.md": "# Notes\n",
  "guides/caching.md": "---\ntype: guide\ntitle: HTTP caching\ndescription: How we cache responses\n---\n# HTTP caching\n\nUse ETags.\n",
  "guides/retries.md": "---\ntype: runbook\ntitle: Retries\n---\n# Retries\n\nBack off exponentially.\n"
}

describe("akm index", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notesDir = workspace.folder("notes", notes)

  it("with no bundles says so and exits 0", async () => {
    const r = await workspace.run(["index", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ schemaVersion: 1, bundles: [], removedBundles: [], totals: { added: 0, items: 0 }, dryRun: false })
    expect((await workspace.run(["index", "--format", "text"])).stdout).toContain("no bundles to index")
  })

  it("bundle add indexes the new bundle; a second index finds it unchanged", async () => {
    const added = await workspace.run(["bundle", "add", notesDir, "--name", "notes", "--format", "json"])
    expect(added.code, added.stderr).toBe(0)
    expect(added.json().items).toBe(2)
    const r = await workspace.run(["index", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe("")
    const result = r.json()
    expect(result.bundles).toEqual([{
      bundle: "notes",
      adapter: "okf",
      status: "unchanged",
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 2,
      files: 3,
      diagnostics: { error: 0, warning: expect.any(Number), info: expect.any(Number) },
      durationMs: expect.any(Number)
    }])
    expect(result.totals).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 2, items: 2 })
    expect((await workspace.run(["bundle", "list", "--format", "json"])).json().bundles[0].items).toBe(2)
  })

  it("--full rescans, --dry-run writes nothing, the text view has one row per bundle", async () => {
    const full = await workspace.run(["index", "--full", "--format", "json"])
    expect(full.json().bundles[0]).toMatchObject({ status: "indexed", reason: "--full", unchanged: 2 })
    rmSync(join(notesDir, "guides/retries.md"))
    const dry = await workspace.run(["index", "--dry-run", "--format", "json"])
    expect(dry.json()).toMatchObject({ dryRun: true, bundles: [{ status: "planned", removed: 1, unchanged: 1 }] })
    const text = await workspace.run(["index", "--format", "text"])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^notes\s+okf\s+indexed\s+\+0 ~0 -1 =1\s+2 files/m)
    expect(text.stdout).toMatch(/✓ 1 item in 1 bundle/)
  })

  it("--format jsonl writes one line per bundle", async () => {
    const r = await workspace.run(["index", "--format", "jsonl"])
    const lines = r.stdout.trim().split("\n").map((line) => JSON.parse(line))
    expect(lines).toMatchObject([{ schemaVersion: 1, bundle: "notes", status: "unchanged" }])
  })

  it("an unknown --bundle exits 1 with a hint", async () => {
    const r = await workspace.run(["index", "--bundle", "nope", "--format", "json"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.error().error).toMatchObject({ code: "not_found", hint: expect.stringContaining("notes") })
  })

  it("a missing bundle root keeps the rows stale and warns on stderr; exit 0", async () => {
    const goneDir = workspace.folder("gone", notes)
    expect((await workspace.run(["bundle", "add", goneDir, "--name", "gone"])).code).toBe(0)
    rmSync(goneDir, { recursive: true })
    const r = await workspace.run(["index", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().bundles.find((b: { bundle: string }) => b.bundle === "gone")).toMatchObject({ status: "stale", unchanged: 2 })
    expect(r.stderr).toContain("gone")
    const search = await workspace.run(["search", "caching", "--format", "json"])
    expect(search.json().stale).toEqual(["gone"])
  })

  it("two index runs at once both finish: one waits for the other's lease (R-IDX-6)", async () => {
    const [a, b] = await Promise.all([workspace.run(["index", "--full", "--format", "json"]), workspace.run(["index", "--full", "--format", "json"])])
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0])
  })
})
