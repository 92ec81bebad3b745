import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { nestDirectories } from "../support/deepTree.js"

// 10-quality-bars §3 (hostile input): the bundle walk is linear in the number of directories. A chain of nested
// directories used to take cubic time (800 deep: 8 s, 1,900 deep: 108 s). With index.maxDepth 2000, `akm bundle add`
// of 800 nested directories takes at most 2 s and of 1,600 at most 2.5 × that.

const workspace = makeWorkspace()
afterAll(workspace.cleanup)

/** `depth` nested directories `d/d/…` with a note at the bottom; built with relative mkdirs (no long paths on the way). */
const nested = (name: string, depth: number): string => nestDirectories(workspace.folder(name, { "top.md": "# top\n" }), depth)

/** The best of two `akm bundle add` runs (then removed), in milliseconds. */
const timeAdd = async (root: string, depth: number): Promise<number> => {
  let best = Number.POSITIVE_INFINITY
  for (let run = 0; run < 2; run++) {
    const name = `${path.basename(root)}-${run}`
    const start = performance.now()
    const added = await workspace.run(["bundle", "add", root, "--name", name, "--format", "json"])
    best = Math.min(best, performance.now() - start)
    expect(added.code, added.stderr).toBe(0)
    expect(added.json().items).toBe(2)
    const search = await workspace.run(["search", "bottom", "--bundle", name, "--format", "json"])
    expect(search.json().hits.map((h: { path: string }) => h.path)).toEqual([path.join(root, `${"d/".repeat(depth)}deep.md`)])
    expect((await workspace.run(["bundle", "remove", name, "--quiet"])).code).toBe(0)
  }
  return best
}

describe("deep trees through the CLI", () => {
  it("with index.maxDepth 2000, 800 nested directories add in ≤ 2 s and 1,600 in ≤ 2.5 × that", async () => {
    expect((await workspace.run(["config", "set", "index.maxDepth", "2000"])).code).toBe(0)
    const shallow = await timeAdd(nested("n800", 800), 800)
    const deep = await timeAdd(nested("n1600", 1600), 1600)
    console.log(`akm bundle add: 800 nested directories ${shallow.toFixed(0)} ms, 1,600: ${deep.toFixed(0)} ms (ratio ${(deep / shallow).toFixed(2)})`)
    expect(shallow).toBeLessThanOrEqual(2_000)
    expect(deep).toBeLessThanOrEqual(2.5 * shallow)
  })
})
