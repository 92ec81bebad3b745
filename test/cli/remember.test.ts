import { readFileSync } from "node:fs"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm remember end to end (issue 7, spec 05 §3, spec 06 §8.6).

describe("akm remember", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("without a bundle to write to: exit 2 naming --bundle and defaultBundle", async () => {
    const r = await workspace.run(["remember", "something"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    const { error } = r.error()
    expect(error.code).toBe("usage")
    expect(error.hint).toContain("--bundle")
    expect(error.hint).toContain("akm config set defaultBundle")
  })

  it("into an OKF bundle: a concept of type memory; text output names the ref, the file and the undo", async () => {
    const notes = workspace.folder("notes", { "index.md": "# Notes\n", "guide.md": "---\ntype: guide\ntitle: Guide\n---\n# Guide\n" })
    expect((await workspace.run(["bundle", "add", notes, "--name", "notes"])).code).toBe(0)
    const r = await workspace.run(["remember", "Deploys freeze on Fridays", "--bundle", "notes", "--tags", "deploy,release", "--format", "text"])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split("\n")
    expect(lines[0]).toBe("✓ remembered notes//memories/deploys-freeze-on-fridays")
    expect(lines[1]).toBe(`  ${notes}/memories/deploys-freeze-on-fridays.md`)
    expect(lines[2]).toMatch(/^ {2}proposal [0-9a-f]{8} \(undo: akm proposal revert [0-9a-f]{8}\)$/)
    const text = readFileSync(`${notes}/memories/deploys-freeze-on-fridays.md`, "utf8")
    expect(text).toMatch(/^---\ntype: memory\ntitle: Deploys freeze on Fridays\n/)
    expect(text).toContain("- deploy\n")
    expect(text).toContain("- release\n")
  })

  it("into a bundle whose adapter has no memories: exit 1 with a hint", async () => {
    const skills = workspace.folder("skills", { "pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms. Use when asked.\n---\n# PDF\n" })
    expect((await workspace.run(["bundle", "add", skills, "--name", "skills"])).code).toBe(0)
    const r = await workspace.run(["remember", "x", "--bundle", "skills"])
    expect(r.code).toBe(1)
    expect(r.error().error).toMatchObject({ code: "conflict", hint: expect.stringContaining("akm create") })
  })
})
