import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterEach } from "vitest"
import { DEFAULT_MAX_DEPTH, makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import { nestDirectories } from "../support/deepTree.js"

// 10-quality-bars §3 (hostile input): a deep tree neither stalls the walk nor is walked without end.

const roots: Array<string> = []
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

/**
 * `depth` nested directories `d/d/…` (built with relative mkdirs, so no path gets long on the way), a note at the
 * bottom, one at depth 10, and a .gitignore every `gitignoreEvery` levels.
 */
const nested = (depth: number, gitignoreEvery = 0): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(process.env.AKM_TEST_WORKER_DIR ?? os.tmpdir(), "akm-deep-")))
  roots.push(root)
  return nestDirectories(root, depth, (i) => {
    if (i === 10) fs.writeFileSync("ten.md", "# ten\n")
    if (gitignoreEvery > 0 && i % gitignoreEvery === 0) fs.writeFileSync(".gitignore", "*.tmp\n")
  })
}

const walk = (root: string, maxDepth?: number) =>
  Effect.runSync(makeBundleFiles(maxDepth === undefined ? undefined : Effect.succeed(maxDepth)).walk(root, { includeHidden: false }))

describe("deep trees", () => {
  it("the walk stops at 64 directories by default and says where (too-deep), listing everything above", () => {
    expect(DEFAULT_MAX_DEPTH).toBe(64)
    const result = walk(nested(70))
    expect(result.files.map((f) => f.path)).toEqual([`${"d/".repeat(10)}ten.md`])
    expect(result.diagnostics).toEqual([{
      code: "too-deep",
      severity: "warning",
      path: Array.from({ length: 65 }, () => "d").join("/"),
      message: "directory nesting deeper than index.maxDepth (64); not entered"
    }])
  })

  it("index.maxDepth raises (or lowers) the cap", () => {
    const root = nested(70)
    expect(walk(root, 100).files.map((f) => f.path)).toEqual([`${"d/".repeat(70)}deep.md`, `${"d/".repeat(10)}ten.md`])
    expect(walk(root, 100).diagnostics).toEqual([])
    const shallow = walk(root, 3)
    expect(shallow.files).toEqual([])
    expect(shallow.diagnostics.map((d) => [d.code, d.path])).toEqual([["too-deep", "d/d/d/d"]])
  })

  it("1,000 nested directories with .gitignore files along the way are walked in seconds, not minutes", () => {
    // Before: realpath of every directory's .gitignore lstat-ed each ancestor (cubic): 800 levels took 8 s.
    const root = nested(1000, 50)
    const start = performance.now()
    const result = walk(root, 2000)
    const elapsed = performance.now() - start
    expect(result.files.map((f) => f.path)).toEqual([`${"d/".repeat(1000)}deep.md`, `${"d/".repeat(10)}ten.md`])
    expect(elapsed).toBeLessThan(5_000)
  })
})
