import { describe, expect, it } from "vitest"
import { canarySample, DEFAULT_GATE, droppedContent, gateConfig, holdoutQueries, judge, protectedFieldChanges, type QueryCheck } from "../../src/domain/Improve.js"

const check = (kind: QueryCheck["kind"], before: number, after: number, extra: Partial<QueryCheck> = {}): QueryCheck => ({ kind, query: `${kind} q`, expected: "b//x", before, after, ...extra })

describe("the Level 2 gate (spec 06 §6)", () => {
  it("passes when triggers improve or hold, holdouts hold, canaries keep their rank and nothing leapfrogs", () => {
    const verdict = judge([check("trigger", 0, 1), check("trigger", 2, 2), check("holdout", 1, 1), check("canary", 3, 3), check("banned", 1, 1, { banned: "b//old", bannedBefore: 2, bannedAfter: 2 })], DEFAULT_GATE)
    expect(verdict).toMatchObject({ pass: true, failures: [] })
    expect(verdict.metrics).toMatchObject({ "l2.trigger.mrr.before": 0.25, "l2.trigger.mrr.after": 0.75 })
  })

  it("a keyword-stuffing candidate — triggers up, holdouts lost — fails", () => {
    const verdict = judge([check("trigger", 0, 1), check("holdout", 1, 0), check("holdout", 1, 3)], DEFAULT_GATE)
    expect(verdict.pass).toBe(false)
    expect(verdict.failures[0]).toMatch(/holdout queries: mean MRR fell from 1.000 to 0.167/)
  })

  it("fails a trigger that drops, a canary that loses a place, a superseded item that leapfrogs its successor", () => {
    expect(judge([check("trigger", 1, 2)], DEFAULT_GATE).pass).toBe(false)
    expect(judge([check("canary", 1, 2)], DEFAULT_GATE).pass).toBe(false)
    expect(judge([check("canary", 0, 0)], DEFAULT_GATE).pass).toBe(true)
    expect(judge([check("banned", 1, 2, { banned: "b//old", bannedBefore: 3, bannedAfter: 1 })], DEFAULT_GATE).failures).toEqual([expect.stringContaining("b//old now ranks above its successor")])
    // A new item its own question does not find answers nothing.
    expect(judge([check("trigger", 0, 0)], DEFAULT_GATE, { mustFind: true }).pass).toBe(false)
  })

  it("holdout drop within the configured tolerance passes; the tolerance comes from improve.gate", () => {
    const checks = [check("holdout", 1, 1), check("holdout", 1, 1), check("holdout", 1, 1), check("holdout", 2, 3)]
    expect(judge(checks, DEFAULT_GATE).pass).toBe(false)
    const loose = gateConfig({ gate: { holdoutMaxDrop: 0.05 } })
    expect("reason" in loose ? loose : judge(checks, loose).pass).toBe(true)
    expect(gateConfig({ gate: { holdoutMaxdrop: 1 } })).toMatchObject({ reason: expect.stringContaining("improve.gate.holdoutMaxdrop is not a gate setting") })
    expect(gateConfig({ gate: { canaries: -1 } })).toMatchObject({ reason: "improve.gate.canaries must be a number ≥ 0" })
  })
})

describe("query sets and Level 1 helpers", () => {
  it("holdouts are deterministic multi-word queries from the target; canaries a fixed hash sample", () => {
    expect(holdoutQueries({ name: "deploy-rollback", description: "Roll back a failed release", headings: ["Notes", "Restore the previous build"] }, [])).toEqual(["deploy rollback", "roll back a failed release", "restore the previous build"])
    // Past searches that returned the target keep up to half the places, even on a page with many headings.
    const headings = ["Step one here", "Step two here", "Step three here", "Step four here", "Step five here", "Step six here", "Step seven here"]
    const withPast = holdoutQueries({ name: "deploy-rollback", headings }, ["undo a bad deploy", "revert the release"])
    expect(withPast).toHaveLength(8)
    expect(withPast.slice(-2)).toEqual(["undo a bad deploy", "revert the release"])
    const refs = Array.from({ length: 20 }, (_, i) => `b//item-${i}`)
    expect(canarySample(refs, new Set(["b//item-3"]), 5)).toEqual(canarySample([...refs].reverse(), new Set(["b//item-3"]), 5))
    expect(canarySample(refs, new Set(["b//item-3"]), 5)).not.toContain("b//item-3")
  })

  it("protected frontmatter fields and dropped sections", () => {
    const before = "---\ndescription: a\nowner: team\n---\n# T\n\n## One\n\nfirst fact here\n\n## Two\n\nsecond fact here\n"
    expect(protectedFieldChanges(before, before.replace("description: a", "description: b"))).toEqual([])
    expect(protectedFieldChanges(before, before.replace("owner: team", "owner: other"))).toEqual(["owner"])
    expect(protectedFieldChanges(before, before.replace("owner: team\n", ""))).toEqual(["owner"])
    expect(protectedFieldChanges(before, "---\n[\n---\n")).toBe("invalid")
    expect(droppedContent(before, before.replace(/\n## Two[\s\S]*$/, "\n")).headings).toEqual(["Two"])
    expect(droppedContent(before, `${before}\nmore text\n`)).toEqual({ headings: [], wordLoss: 0 })
  })
})
