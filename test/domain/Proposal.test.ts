import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  actionOf,
  appliedFileOf,
  autoApplies,
  autoApplyPolicy,
  canMove,
  DEFAULT_AUTO_APPLY,
  fingerprint,
  PROPOSAL_STATUSES,
  sha256Hex,
  shortId,
  type FingerprintInput
} from "../../src/domain/Proposal.js"

const hash = fc.stringMatching(/^[0-9a-f]{64}$/)
const target = fc.record({ bundle: fc.string({ minLength: 1, maxLength: 8 }), path: fc.string({ minLength: 1, maxLength: 16 }), beforeHash: fc.option(hash, { nil: null }) })
const evidence = fc.record({ id: fc.string({ maxLength: 12 }), hash: fc.option(hash, { nil: undefined }) })

const input: fc.Arbitrary<FingerprintInput> = fc.record({
  recipe: fc.string({ maxLength: 10 }),
  recipeVersion: fc.string({ maxLength: 4 }),
  targets: fc.array(target, { maxLength: 5 }),
  evidence: fc.array(evidence, { maxLength: 5 }),
  guidance: fc.array(hash, { maxLength: 3 }),
  evaluatorVersion: fc.string({ maxLength: 8 }),
  generator: fc.string({ maxLength: 8 })
})

/** Every single-field edit that must open a new attempt (R-IMP-3). */
const edits: ReadonlyArray<readonly [string, (i: FingerprintInput) => FingerprintInput]> = [
  ["recipe", (i) => ({ ...i, recipe: `${i.recipe}x` })],
  ["recipe version", (i) => ({ ...i, recipeVersion: `${i.recipeVersion}1` })],
  ["a target's before-hash", (i) => ({ ...i, targets: [...i.targets, { bundle: "b", path: "p", beforeHash: null }] })],
  ["evidence", (i) => ({ ...i, evidence: [...i.evidence, { id: "new-evidence" }] })],
  ["guidance", (i) => ({ ...i, guidance: [...i.guidance, sha256Hex("rule")] })],
  ["evaluator", (i) => ({ ...i, evaluatorVersion: `${i.evaluatorVersion}2` })],
  ["generator", (i) => ({ ...i, generator: `${i.generator}g` })]
]

describe("fingerprint (spec 06 §3)", () => {
  it("is a sha256 hex digest and deterministic", () => {
    fc.assert(fc.property(input, (i) => {
      expect(fingerprint(i)).toMatch(/^[0-9a-f]{64}$/)
      expect(fingerprint(structuredClone(i))).toBe(fingerprint(i))
    }))
  })

  it("ignores the order of targets, evidence and guidance", () => {
    fc.assert(fc.property(input, fc.nat(), (i, seed) => {
      const shuffle = <T>(xs: ReadonlyArray<T>): ReadonlyArray<T> => [...xs].map((x, n) => [((n + 1) * (seed + 7)) % 101, x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x)
      expect(fingerprint({ ...i, targets: shuffle(i.targets), evidence: shuffle(i.evidence), guidance: shuffle(i.guidance) })).toBe(fingerprint(i))
      expect(fingerprint({ ...i, targets: [...i.targets].reverse(), evidence: [...i.evidence].reverse(), guidance: [...i.guidance].reverse() })).toBe(fingerprint(i))
    }))
  })

  it("changes when any input changes", () => {
    fc.assert(fc.property(input, (i) => {
      for (const [, edit] of edits) expect(fingerprint(edit(i))).not.toBe(fingerprint(i))
    }))
  })

  it("keeps fields apart: moving text between neighbouring fields is a different fingerprint", () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ minLength: 1, maxLength: 6 }), (a, b) => {
      const base: FingerprintInput = { recipe: a + b, recipeVersion: "", targets: [], evidence: [], guidance: [], evaluatorVersion: "", generator: "" }
      expect(fingerprint({ ...base, recipe: a, recipeVersion: b })).not.toBe(fingerprint(base))
      expect(fingerprint({ ...base, recipe: "", evaluatorVersion: a + b })).not.toBe(fingerprint({ ...base, recipe: "", generator: a + b }))
    }))
  })

  it("a file's changed bytes or a moved hash between two files is new work", () => {
    const x = sha256Hex("x")
    const y = sha256Hex("y")
    const base: FingerprintInput = { recipe: "revise", recipeVersion: "1", targets: [{ bundle: "n", path: "a.md", beforeHash: x }, { bundle: "n", path: "b.md", beforeHash: y }], evidence: [], guidance: [], evaluatorVersion: "1", generator: "g" }
    expect(fingerprint({ ...base, targets: [{ bundle: "n", path: "a.md", beforeHash: y }, { bundle: "n", path: "b.md", beforeHash: x }] })).not.toBe(fingerprint(base))
    expect(fingerprint({ ...base, targets: [{ bundle: "n", path: "a.md", beforeHash: x }, { bundle: "n", path: "b.md", beforeHash: null }] })).not.toBe(fingerprint(base))
  })
})

describe("proposal lifecycle", () => {
  it("pending → accepted | rejected | failed | expired; accepted → reverted; everything else is final", () => {
    const allowed = PROPOSAL_STATUSES.flatMap((from) => PROPOSAL_STATUSES.filter((to) => canMove(from, to)).map((to) => `${from}→${to}`))
    expect(allowed).toEqual(["pending→accepted", "pending→rejected", "pending→expired", "pending→failed", "accepted→reverted"])
  })

  it("short ids are the first 8 characters", () => {
    expect(shortId("0f8a2c1e-7d4b-4a4e-9a7c-1b2c3d4e5f60")).toBe("0f8a2c1e")
  })

  it("names what a change does and what the engine recorded for it", () => {
    const before = sha256Hex("old")
    expect(actionOf({ bundle: "n", path: "a", beforeHash: null, after: "x" })).toBe("create")
    expect(actionOf({ bundle: "n", path: "a", beforeHash: before, after: "x" })).toBe("update")
    expect(actionOf({ bundle: "n", path: "a", beforeHash: before, delete: true })).toBe("delete")
    expect(appliedFileOf({ bundle: "n", path: "a", beforeHash: before, after: "x" })).toEqual({ bundle: "n", path: "a", beforeHash: before, afterHash: sha256Hex("x"), backup: before })
    expect(appliedFileOf({ bundle: "n", path: "a", beforeHash: null, after: new Uint8Array([1]) })).toEqual({ bundle: "n", path: "a", beforeHash: null, afterHash: sha256Hex(new Uint8Array([1])) })
    expect(appliedFileOf({ bundle: "n", path: "a", beforeHash: before, delete: true })).toEqual({ bundle: "n", path: "a", beforeHash: before, afterHash: null, backup: before })
  })
})

describe("auto-apply policy (R-IMP-9)", () => {
  it("defaults to mechanical; semantic and destructive never auto-apply", () => {
    expect(autoApplyPolicy(undefined)).toEqual(DEFAULT_AUTO_APPLY)
    expect(autoApplies("mechanical", DEFAULT_AUTO_APPLY)).toBe(true)
    expect(autoApplies("verified-semantic", DEFAULT_AUTO_APPLY)).toBe(false)
    expect(autoApplies("verified-semantic", ["mechanical", "verified-semantic"])).toBe(true)
    expect(autoApplies("semantic", ["semantic"])).toBe(false)
    expect(autoApplies("destructive", ["destructive"])).toBe(false)
    expect(autoApplies("mechanical", [])).toBe(false)
  })

  it("reads policy.autoApply and explains a bad value", () => {
    expect(autoApplyPolicy({ autoApply: [] })).toEqual([])
    expect(autoApplyPolicy({ autoApply: ["mechanical", "verified-semantic"] })).toEqual(["mechanical", "verified-semantic"])
    expect(autoApplyPolicy({ autoApply: "mechanical" })).toEqual({ reason: "must be a list of change classes" })
    expect(autoApplyPolicy({ autoApply: ["mechanic"] })).toMatchObject({ reason: expect.stringContaining("unknown change class \"mechanic\"") })
  })
})
