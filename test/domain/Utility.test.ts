import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decayed, utilityOf, UTILITY_HALF_LIFE_MS, UTILITY_PRIOR, type Outcome } from "../../src/domain/Utility.js"

const outcome = fc.record({ kind: fc.constantFrom("show", "select", "positive", "negative" as const), atMs: fc.integer({ min: 0, max: 10 * UTILITY_HALF_LIFE_MS }) })
const history = fc.array(outcome, { minLength: 1, maxLength: 60 }).map((list) => [...list].sort((a, b) => a.atMs - b.atMs) as Array<Outcome>)

describe("utility (spec 04 §6)", () => {
  it("no outcomes, no utility", () => {
    expect(utilityOf([])).toBeUndefined()
  })

  it("stays in [0, 1] for any history", () => {
    fc.assert(fc.property(history, (list) => {
      const value = utilityOf(list)!
      expect(value).toBeGreaterThanOrEqual(0)
      expect(value).toBeLessThanOrEqual(1)
    }))
  })

  it("one more positive vote never lowers it; one more negative never raises it", () => {
    fc.assert(fc.property(history, (list) => {
      const at = list.at(-1)!.atMs
      const before = utilityOf(list)!
      expect(utilityOf([...list, { kind: "positive", atMs: at }])!).toBeGreaterThanOrEqual(before)
      expect(utilityOf([...list, { kind: "negative", atMs: at }])!).toBeLessThanOrEqual(before)
    }))
  })

  it("explicit feedback outweighs reads; a negative takes a fresh item to 0.25", () => {
    expect(utilityOf([{ kind: "negative", atMs: 0 }])).toBe(0.25)
    expect(utilityOf([{ kind: "positive", atMs: 0 }])).toBe(0.75)
    expect(utilityOf([{ kind: "select", atMs: 0 }])!).toBeGreaterThan(utilityOf([{ kind: "show", atMs: 0 }])!)
    expect(utilityOf([{ kind: "show", atMs: 0 }])!).toBeLessThan(0.75)
  })

  it("evidence decays toward the prior with the half-life", () => {
    expect(decayed(1, UTILITY_HALF_LIFE_MS)).toBeCloseTo(UTILITY_PRIOR + 0.25, 12)
    expect(decayed(0.3, 0)).toBe(0.3)
    expect(decayed(0, 100 * UTILITY_HALF_LIFE_MS)).toBeCloseTo(UTILITY_PRIOR, 9)
  })
})
