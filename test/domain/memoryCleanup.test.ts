import { describe, expect, it } from "vitest"
import { coverageRetirement, deterministicCleanup, fullyDisposed } from "../../src/domain/memory/Cleanup.js"
import { normalisedContent, parseExpires, type MemoryRecord } from "../../src/domain/memory/MemoryRecord.js"

// Deterministic cleanup and claim-disposed retirement (spec 06 §8.2, §8.4; R-MEM-1, R-MEM-3; seed 002 §13.38).

const NOW = Date.parse("2026-06-01T00:00:00Z")

let n = 0
const rec = (body: string, extra: Partial<MemoryRecord> = {}): MemoryRecord => {
  n++
  const name = extra.ref?.split("//")[1] ?? `memories/m${n}`
  return { ref: `b//${name}`, path: `${name}.md`, hash: `h${n}`, bytes: body.length, observedAt: new Date(NOW - 86_400_000 * (100 - n)).toISOString(), body, problems: [], ...extra }
}

describe("parseExpires", () => {
  it("reads durations and ISO dates; a past date is already expired", () => {
    expect(parseExpires("30d", NOW)).toEqual({ at: new Date(NOW + 30 * 86_400_000).toISOString() })
    expect(parseExpires("12h", NOW)).toEqual({ at: new Date(NOW + 12 * 3_600_000).toISOString() })
    expect(parseExpires("2w", NOW)).toEqual({ at: new Date(NOW + 14 * 86_400_000).toISOString() })
    expect(parseExpires("2020-01-01", NOW)).toEqual({ at: "2020-01-01T00:00:00.000Z" })
    expect(parseExpires("2027-03-01T10:00:00Z", NOW)).toEqual({ at: "2027-03-01T10:00:00.000Z" })
    expect(parseExpires(new Date("2026-01-01T00:00:00Z"), NOW)).toEqual({ at: "2026-01-01T00:00:00.000Z" })
  })

  it("an unknown format is a reason, never a guess", () => {
    for (const bad of ["next tuesday", "30 days", "1y", "2026-13-45", "", 7]) expect(parseExpires(bad, NOW)).toHaveProperty("reason")
  })
})

describe("deterministicCleanup", () => {
  it("retires exact and normalised duplicates, keeping the oldest copy as the successor", () => {
    const a = rec("# Runner IP\n\nThe runner IP is 10.0.0.7.\n")
    const b = rec("# Runner IP\n\nThe runner IP is 10.0.0.7.\n")
    const c = rec("# runner ip\n\nThe  runner IP is **10.0.0.7**\n")
    const other = rec("# Different\n\nThe runner IP is 10.0.0.8.\n")
    const plan = deterministicCleanup({ records: [a, b, c, other], nowMs: NOW })
    expect(plan.retire.map((r) => [r.record.ref, r.reason, r.successors])).toEqual([
      [b.ref, "duplicate", [a.ref]],
      [c.ref, "duplicate", [a.ref]]
    ])
    expect(normalisedContent(a.body)).toBe(normalisedContent(c.body))
    expect(plan.retire.every(fullyDisposed)).toBe(true)
  })

  it("retires expired items; a broken frontmatter or an unknown expires is a problem, never a retirement", () => {
    const expired = rec("Old window.", { expires: "2020-01-01T00:00:00.000Z" })
    const live = rec("Live window.", { expires: "2030-01-01T00:00:00.000Z" })
    const broken = rec("---\nexpires: [\n---\nBroken.", { problems: [{ code: "broken-frontmatter", line: 2, message: "m1.md:2: the frontmatter cannot be read" }], expires: "2020-01-01T00:00:00.000Z" })
    const unknown = rec("Unknown expiry.", { problems: [{ code: "unknown-expires", line: 2, message: "expires 'soon' is neither" }] })
    const plan = deterministicCleanup({ records: [expired, live, broken, unknown], nowMs: NOW })
    expect(plan.retire.map((r) => [r.record.ref, r.reason])).toEqual([[expired.ref, "expired"]])
    expect(plan.retire[0]!.dispositions).toEqual([{ claim: "Old window.", disposition: "discarded", by: "expired" }])
    expect(plan.problems.map((p) => [p.ref, p.problem.code])).toEqual([[broken.ref, "broken-frontmatter"], [unknown.ref, "unknown-expires"]])
  })

  it("retires an explicitly superseded item when the successor exists, following a chain to its end", () => {
    const v1 = rec("VPN uses OpenVPN.", { ref: "b//memories/v1" })
    const v2 = rec("VPN uses WireGuard.", { ref: "b//memories/v2", supersedes: ["b//memories/v1"] })
    const v3 = rec("VPN uses WireGuard 1.0.", { ref: "b//memories/v3", supersedes: ["b//memories/v2"] })
    const plan = deterministicCleanup({ records: [v1, v2, v3], nowMs: NOW })
    expect(plan.retire.map((r) => [r.record.ref, r.reason, r.successors])).toEqual([
      ["b//memories/v1", "superseded", ["b//memories/v3"]],
      ["b//memories/v2", "superseded", ["b//memories/v3"]]
    ])
  })

  it("a supersession cycle retires nothing and names the cycle", () => {
    const a = rec("A says so.", { ref: "b//memories/a", supersededBy: "b//memories/b" })
    const b = rec("B says so.", { ref: "b//memories/b", supersededBy: "b//memories/a" })
    const plan = deterministicCleanup({ records: [a, b], nowMs: NOW })
    expect(plan.retire).toEqual([])
    expect(plan.problems.map((p) => p.problem.code)).toEqual(["supersession-cycle", "supersession-cycle"])
    expect(plan.problems[0]!.problem.message).toContain("b//memories/a → b//memories/b → b//memories/a")
  })

  it("a successor that does not exist retires nothing; one outside the tier (formalized knowledge) counts", () => {
    const lost = rec("Lost.", { supersededBy: "b//memories/nowhere" })
    const formal = rec("Formalized.", { supersededBy: "b//knowledge/vpn" })
    const plan = deterministicCleanup({ records: [lost, formal], nowMs: NOW, otherRefs: new Set(["b//knowledge/vpn"]) })
    expect(plan.retire.map((r) => [r.record.ref, r.successors])).toEqual([[formal.ref, ["b//knowledge/vpn"]]])
    expect(plan.problems.map((p) => p.problem.code)).toEqual(["unknown-successor"])
  })

  it("an invalid generated derivative (its source is gone) is quarantined", () => {
    const derived = rec("Summary of the deploy runbook.", { derivedFrom: "b//knowledge/deploy" })
    const fine = rec("Summary of the guide.", { derivedFrom: "b//knowledge/guide" })
    const plan = deterministicCleanup({ records: [derived, fine], nowMs: NOW, otherRefs: new Set(["b//knowledge/guide"]) })
    expect(plan.retire.map((r) => [r.record.ref, r.reason, r.state])).toEqual([[derived.ref, "invalid-derivative", "quarantined"]])
  })
})

describe("coverageRetirement (semantic, R-MEM-3)", () => {
  it("retires a source only when a retained memory states every claim; two memories never retire each other", () => {
    const small = rec("The runner IP is 10.0.0.7.")
    const big = rec("The runner IP is 10.0.0.7.\nDeploys freeze on Fridays.")
    const unique = rec("The staging DB is in eu-west-1.")
    const out = coverageRetirement([small, big, unique], 0)
    expect(out.map((r) => [r.record.ref, r.reason, r.successors])).toEqual([[small.ref, "covered", [big.ref]]])
    expect(out[0]!.dispositions).toEqual([{ claim: "The runner IP is 10.0.0.7.", disposition: "in-other-retained-source", by: big.ref }])
  })

  it("an undispositioned claim blocks retirement, and it stops at the target", () => {
    const partial = rec("The runner IP is 10.0.0.7.\nThe VPN needs MFA.")
    const other = rec("The runner IP is 10.0.0.7.")
    expect(coverageRetirement([partial, other], 0).map((r) => r.record.ref)).toEqual([other.ref])
    expect(coverageRetirement([partial, other], 2)).toEqual([])
  })
})
