import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot } from "../../test/support/cli.js"

// Issue 24: an embedding program that builds its own layer graph from the package's `layers` and runs
// search, remember and proposal accept through `programs.*` — importing "akm" as built, in a process of its own.

describe("examples/embed/graph.mjs", () => {
  const workspace = makeWorkspace()
  const root = mkdtempSync(join(tmpdir(), "akm-embed-graph-"))
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
    workspace.cleanup()
  })

  it("searches, remembers (a pending proposal) and accepts it on a graph with the in-memory IndexStore", async () => {
    await workspace.run(["--version"]) // builds dist/ when it is stale
    const out = execFileSync(process.execPath, [join(repoRoot, "examples/embed/graph.mjs"), root], { env: workspace.env, encoding: "utf8", timeout: 60_000 })
    const result = JSON.parse(out)
    expect(result.found.hits[0].ref).toBe("notes//caching")
    expect(result.remembered.status).toBe("pending")
    expect(result.pending.proposals.map((p: { id: string }) => p.id)).toEqual([result.remembered.id])
    expect(result.accepted.status).toBe("accepted")
    expect(readFileSync(result.remembered.path, "utf8")).toContain("cached for a year")
    expect(result.after.hits.map((h: { ref: string }) => h.ref)).toContain(result.remembered.ref)
    // The swapped index was the one used: the graph never made index.db.
    expect(existsSync(join(root, "cache", "index.db"))).toBe(false)
    expect(existsSync(join(root, "data", "state.db"))).toBe(true)
  })
})
