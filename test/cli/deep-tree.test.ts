import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { nestDirectories } from "../support/deepTree.js"

// 10-quality-bars §3 (hostile input): index.maxDepth (default 64) caps the bundle walk; what lies deeper is a
// `too-deep` diagnostic, and raising the key brings it in.

describe("index.maxDepth", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  const nested = (depth: number): string => nestDirectories(workspace.folder("deep", { "top.md": "# top\n" }), depth)

  it("is validated like every key", async () => {
    // A value starting with "-" follows `--` (else it is an option: a usage error).
    for (const bad of ["0", "-1", "1.5"]) {
      const r = await workspace.run(["config", "set", "--format", "json", "index.maxDepth", "--", bad])
      expect(r.code, bad).toBe(78)
      expect(r.error().error.message).toMatch(/index\.maxDepth must be (a number between 1 and 100000|an integer), not/)
    }
  })

  it("a tree deeper than 64 directories is cut there with a too-deep diagnostic; raising the key indexes the rest", async () => {
    const root = nested(80)
    const added = await workspace.run(["bundle", "add", root, "--name", "deep", "--format", "json"])
    expect(added.code, added.stderr).toBe(0)
    expect(added.json().items).toBe(1)
    const lint = await workspace.run(["lint", "--bundle", "deep", "--format", "json"])
    const findings = (lint.json().bundles[0].files as Array<{ path: string; diagnostics: Array<{ code: string; message: string }> }>)
      .flatMap((f) => f.diagnostics.map((d) => [f.path, d.code, d.message]))
      .filter(([, code]) => code === "too-deep")
    expect(findings).toEqual([[Array.from({ length: 65 }, () => "d").join("/"), "too-deep", "directory nesting deeper than index.maxDepth (64); not entered"]])

    expect((await workspace.run(["config", "set", "index.maxDepth", "100"])).code).toBe(0)
    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)
    const search = await workspace.run(["search", "bottom", "--format", "json"])
    expect(search.json().hits.map((h: { ref: string }) => h.ref)).toEqual([`deep//${"d/".repeat(80)}deep`])
  })
})
