import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { notesFiles } from "../support/indexedWorkspace.js"

// akm feedback end to end (spec 04 §6): exit codes, the JSON shape, and learned state that outlives reindexing and re-adding (R-FB-1).

describe("akm feedback", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const notes = workspace.folder("notes", notesFiles)

  beforeAll(async () => {
    expect((await workspace.run(["bundle", "add", notes, "--name", "notes"])).code).toBe(0)
    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)
  })

  const whyOf = async (query: string, ref: string): Promise<ReadonlyArray<string>> => {
    const r = await workspace.run(["search", query, "--no-track", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    return r.json().hits.find((h: { ref: string }) => h.ref === ref)?.why ?? []
  }

  it("needs exactly one of --positive and --negative, and a reason for --negative (exit 2)", async () => {
    for (const args of [[], ["--positive", "--negative"], ["--negative"], ["--negative", "--reason", " "]]) {
      const r = await workspace.run(["feedback", "notes//guide", ...args, "--format", "json"])
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.error().error.code).toBe("usage")
    }
    expect((await workspace.run(["feedback", "notes//guide", "--positive", "--tag", "novalue", "--format", "json"])).code).toBe(2)
  })

  it("an unknown ref exits 1", async () => {
    const r = await workspace.run(["feedback", "notes//nope", "--positive", "--format", "json"])
    expect(r.code).toBe(1)
    expect(r.error().error.code).toBe("not_found")
  })

  it("agent feedback is recorded but teaches no utility", async () => {
    const r = await workspace.run(["feedback", "notes//runbook", "--positive", "--format", "json"], { env: { AKM_EVENT_SOURCE: "agent" } })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ ref: "notes//runbook", source: "agent", utility: null })
  })

  it("records the feedback, and the learned utility survives `index --full` and a remove and re-add (R-FB-1)", async () => {
    const r = await workspace.run(["feedback", "guide", "--positive", "--reason", "clear steps", "--tag", "task=release", "--format", "json"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({
      schemaVersion: 1,
      id: expect.any(Number),
      at: expect.any(String),
      ref: "notes//guide",
      polarity: "positive",
      reason: "clear steps",
      tags: { task: "release" },
      source: "user",
      utility: 0.75
    })
    expect(await whyOf("deploy guide", "notes//guide")).toContain("utility:+")
    expect((await workspace.run(["index", "--full", "--quiet"])).code).toBe(0)
    expect(await whyOf("deploy guide", "notes//guide")).toContain("utility:+")
    expect((await workspace.run(["bundle", "remove", "notes"])).code).toBe(0)
    expect((await workspace.run(["bundle", "add", notes, "--name", "notes"])).code).toBe(0)
    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)
    expect(await whyOf("deploy guide", "notes//guide")).toContain("utility:+")
    const negative = await workspace.run(["feedback", "notes//guide", "--negative", "--reason", "outdated", "--format", "text"])
    expect(negative.code).toBe(0)
    expect(negative.stdout).toBe("- notes//guide: outdated\nutility: 0.375\n")
  })
})
