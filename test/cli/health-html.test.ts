import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

const ws = makeWorkspace()
afterAll(() => ws.cleanup())

describe("akm health --format html (spec 04 §7)", () => {
  it("writes a self-contained report page naming each bundle", async () => {
    const folder = ws.folder("kb", { "note.md": "---\ntype: knowledge\ntitle: A note\n---\n# A note\n" })
    expect((await ws.run(["bundle", "add", folder, "--name", "kb"])).code).toBe(0)
    const result = await ws.run(["health", "--format", "html"])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^<!doctype html>/)
    expect(result.stdout).toContain("<td>kb</td>")
    expect(result.stdout).toContain("nothing needs attention")
    expect(result.stdout).not.toMatch(/<script|<link /)
  })
})
