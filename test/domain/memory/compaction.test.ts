import { describe, expect, it } from "vitest"
import { contradictionsIn, judgeSources, keepContradictions, relatedGroups, temporalLine } from "../../../src/domain/memory/Compaction.js"
import type { MemoryRecord } from "../../../src/domain/memory/MemoryRecord.js"

// Compaction and formalisation decisions (spec 06 §8.4, R-MEM-3): grouping, contradictions, source verdicts.

const record = (name: string, body: string, observedAt: string): MemoryRecord => ({
  ref: `mine//memories/${name}`,
  path: `memories/${name}.md`,
  hash: name,
  bytes: body.length,
  observedAt,
  body,
  problems: []
})

describe("compaction", () => {
  const a = record("vpn-1", "The office VPN listens on port 1194.\nThe VPN gateway is vpn.example.com.", "2026-01-05T10:00:00.000Z")
  const b = record("vpn-2", "The office VPN listens on port 51820.", "2026-03-01T09:00:00.000Z")
  const c = record("lunch", "Lunch is served at noon in the cafeteria on the second floor.", "2026-01-01T00:00:00.000Z")

  it("groups related memories and leaves unrelated ones out", () => {
    const groups = relatedGroups([a, b, c])
    expect(groups.map((g) => g.map((r) => r.ref))).toEqual([[a.ref, b.ref]])
  })

  it("a changed value is a contradiction kept with temporal qualifiers, never one picked", () => {
    const found = contradictionsIn([b, a])
    expect(found).toEqual([expect.objectContaining({ older: expect.objectContaining({ ref: a.ref }), newer: expect.objectContaining({ ref: b.ref }), changedOn: "2026-03-01" })])
    expect(temporalLine(found[0]!)).toBe("Until 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.")
    // A generator that kept only the new value: the old one comes back, qualified.
    const picked = "The office VPN listens on port 51820.\nThe VPN gateway is vpn.example.com.\n"
    const kept = keepContradictions(picked, found)
    expect(kept.added).toHaveLength(1)
    expect(kept.body).toContain("Until 2026-03-01: The office VPN listens on port 1194; since 2026-03-01: The office VPN listens on port 51820.")
    // Both sources are then covered by the consolidated text.
    expect(judgeSources([a, b], kept.body, "mine//memories/vpn").map((v) => v._tag)).toEqual(["Covered", "Covered"])
    // Already qualified by the generator: nothing is added.
    expect(keepContradictions(kept.body, found).added).toEqual([])
  })

  it("a consolidated item that drops a claim does not retire its source", () => {
    const verdicts = judgeSources([a, b], "The office VPN listens on port 51820 since 2026-03-01; before that, port 1194.", "mine//memories/vpn")
    expect(verdicts[0]!._tag).toBe("Kept")
    expect(verdicts[0]!._tag === "Kept" ? verdicts[0]!.uncovered : []).toContainEqual({ claim: "The VPN gateway is vpn.example.com.", reason: "\"vpn.example.com\" is not named" })
    expect(verdicts[1]!._tag).toBe("Covered")
  })
})
