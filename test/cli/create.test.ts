import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm create end to end (issue 7, spec 05 §3).

describe("akm create", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  beforeAll(async () => {
    expect((await workspace.run(["bundle", "create", "mine"])).code).toBe(0)
  })

  it("renders a native item through the bundle's adapter as an accepted proposal", async () => {
    const body = workspace.folder("drafts", { "checklist.md": "- tests\n- changelog\n" })
    const r = await workspace.run(["create", "knowledge", "--bundle", "mine", "--title", "Release checklist", "--description", "Before a release", "--body-file", `${body}/checklist.md`])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ schemaVersion: 1, status: "accepted", title: "Create knowledge: Release checklist", ref: "mine//knowledge/release-checklist" })
    expect(readFileSync(r.json().path, "utf8")).toBe("---\ndescription: Before a release\n---\n\n# Release checklist\n\n- tests\n- changelog\n")
    const listed = (await workspace.run(["proposal", "list", "--recipe", "create"])).json().proposals
    expect(listed.map((p: { id: string }) => p.id)).toEqual([r.json().id])
  })

  it("--body with --body-file, or a missing --title, is a usage error (exit 2)", async () => {
    expect((await workspace.run(["create", "knowledge", "--bundle", "mine", "--title", "x", "--body", "a", "--body-file", "b.md"])).code).toBe(2)
    expect((await workspace.run(["create", "knowledge", "--bundle", "mine"])).code).toBe(2)
  })

  it("--field key=value reaches the adapter (a repeated key is a list); --field without '=' is a usage error naming it (exit 2)", async () => {
    const r = await workspace.run(["create", "knowledge", "--bundle", "mine", "--title", "Runbook", "--body", "Steps.", "--field", "tags=ops", "--field", "tags=release", "--field", "owner=platform"])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(r.json().path, "utf8")).toContain("tags:\n  - ops\n  - release\nowner: platform\n")
    const bad = await workspace.run(["create", "knowledge", "--bundle", "mine", "--title", "Other", "--field", "owner"])
    expect(bad.code).toBe(2)
    expect(bad.error().error.message).toContain("--field 'owner' has no '='")
  })

  it("a type the adapter does not know is a conflict naming it", async () => {
    const r = await workspace.run(["create", "widget", "--bundle", "mine", "--title", "x"])
    expect(r.code).toBe(1)
    expect(r.error().error.message).toContain("widget")
  })
})
