import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { notesFiles } from "../support/indexedWorkspace.js"

// akm health end to end (spec 04 §7): exit 4 while something needs attention, 0 after it is fixed.

describe("akm health", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("a fresh workspace is healthy (exit 0)", async () => {
    const r = await workspace.run(["health", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ schemaVersion: 1, ok: true, attention: [], bundles: [], proposals: { pending: 0 } })
  })

  it("exits 4 while the index is missing, 0 once it is built; a vanished root makes the bundle stale (exit 4)", async () => {
    const notes = workspace.folder("notes", notesFiles)
    expect((await workspace.run(["bundle", "add", notes, "--name", "notes"])).code).toBe(0)
    for (const file of ["index.db", "index.db-wal", "index.db-shm"]) rmSync(join(workspace.cacheDir, file), { force: true })
    const missing = await workspace.run(["health", "--format", "json"])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toBe("")
    expect(missing.json().attention).toEqual([{ code: "index-missing", message: expect.any(String), hint: "run `akm index`" }])

    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)
    const healthy = await workspace.run(["health", "--format", "json"])
    expect(healthy.code, healthy.stdout).toBe(0)
    const result = healthy.json()
    expect(result.bundles).toEqual([{
      bundle: "notes",
      status: ["ok"],
      adapter: "okf",
      items: 2,
      indexedAt: result.index.lastIndexed,
      stale: null,
      refresh: { interval: null, updatedAt: expect.any(String), overdue: false },
      diagnostics: { error: 0, warning: expect.any(Number), info: expect.any(Number) },
      memory: null
    }])
    expect(result.databases.map((d: { name: string; bytes: number | null }) => [d.name, d.bytes !== null])).toEqual([["state.db", true], ["index.db", true], ["logs.db", false]])

    rmSync(notes, { recursive: true, force: true })
    expect((await workspace.run(["index", "--quiet"])).code).not.toBe(70)
    const stale = await workspace.run(["health", "--format", "text"])
    expect(stale.code).toBe(4)
    expect(stale.stdout).toContain("stale")
    expect(stale.stdout).toMatch(/1 thing needs attention:\n {2}- bundle 'notes' is stale/)
  })
})
