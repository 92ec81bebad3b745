import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { CANARY, notesFiles, secretsFiles, skillsFiles } from "../support/indexedWorkspace.js"

// akm curate end to end (spec 04 §5): the JSON shape, the budget, the text view.

describe("akm curate", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  beforeAll(async () => {
    for (const [name, files] of [["notes", notesFiles], ["skills", skillsFiles], ["vault", secretsFiles]] as const) {
      expect((await workspace.run(["bundle", "add", workspace.folder(name, files), "--name", name])).code).toBe(0)
    }
    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)
  })

  it("prints { task, budget, tokens, items } in rank order within the budget", async () => {
    const r = await workspace.run(["curate", "fill in a pdf form for a user", "--budget", "600", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    const result = r.json()
    expect(Object.keys(result)).toEqual(["schemaVersion", "task", "budget", "tokens", "items"])
    expect(result).toMatchObject({ schemaVersion: 1, task: "fill in a pdf form for a user", budget: 600 })
    expect(result.tokens).toBeLessThanOrEqual(600)
    expect(result.items[0]).toMatchObject({ ref: "skills//pdf", type: "skill", name: "pdf", level: "full", content: skillsFiles["pdf/SKILL.md"], next: "akm show skills//pdf" })
    for (const item of result.items) {
      expect(Object.keys(item)).toEqual(["ref", "type", "name", "description", "level", "tokens", "score", ...(item.level === "full" ? ["content"] : []), "next"])
    }
  })

  it("--bundle narrows; the text view shows full items and cards; no secret value is ever printed", async () => {
    const r = await workspace.run(["curate", "deploy guide install", "--bundle", "notes", "--budget", "300", "--format", "text"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^- Deploy guide \(guide\): How to deploy the web app {2}→ akm show notes\/\/guide$/m)
    expect(r.stdout).toMatch(/\d+ of 300 tokens, 0 in full, \d+ as cards\n$/)
    const env = await workspace.run(["curate", "app settings API_TOKEN", "--format", "json"])
    expect(env.stdout).not.toContain(CANARY)
  })

  it("a budget below 1 is a usage error (exit 2)", async () => {
    const r = await workspace.run(["curate", "x", "--budget", "0", "--format", "json"])
    expect(r.code).toBe(2)
    expect(r.error().error.code).toBe("usage")
  })
})
