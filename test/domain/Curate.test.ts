import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { familyOf, pack, type PackCandidate } from "../../src/domain/Curate.js"

const candidate = fc.record({
  type: fc.option(fc.constantFrom("skill", "knowledge", "command", "reference"), { nil: undefined }),
  family: fc.constantFrom("f1", "f2", "f3", "f4", "f5"),
  cardTokens: fc.integer({ min: 0, max: 300 }),
  fullTokens: fc.option(fc.integer({ min: 0, max: 6000 }), { nil: undefined }),
  score: fc.double({ min: 0, max: 1, noNaN: true })
})

const candidates = fc.array(candidate, { maxLength: 40 }).map((list) => list.map((c, i): PackCandidate => ({ ...c, ref: `b//item-${i}` })))
const options = fc.record({ budget: fc.integer({ min: 0, max: 10_000 }), maxItems: fc.integer({ min: 0, max: 25 }), maxFull: fc.integer({ min: 0, max: 6 }), fullScoreRatio: fc.double({ min: 0, max: 1, noNaN: true }) })

describe("pack (spec 04 §5)", () => {
  it("never goes over budget, keeps rank order, and respects item, full, family and type limits", () => {
    fc.assert(
      fc.property(candidates, options, (list, opts) => {
        const packed = pack(list, opts)
        expect(packed.reduce((sum, p) => sum + p.tokens, 0)).toBeLessThanOrEqual(opts.budget)
        expect(packed.length).toBeLessThanOrEqual(opts.maxItems)
        const positions = packed.map((p) => list.findIndex((c) => c.ref === p.ref))
        expect(positions).toEqual([...positions].sort((a, b) => a - b))
        expect(new Set(positions).size).toBe(positions.length)
        const full = packed.filter((p) => p.level === "full").map((p) => list.find((c) => c.ref === p.ref)!)
        expect(full.length).toBeLessThanOrEqual(opts.maxFull)
        expect(new Set(full.map((c) => c.family)).size).toBe(full.length)
        expect(new Set(full.map((c) => c.type ?? "")).size).toBe(full.length)
        const best = Math.max(0, ...packed.map((p) => list.find((c) => c.ref === p.ref)!.score))
        for (const c of full) expect(c.score).toBeGreaterThanOrEqual(opts.fullScoreRatio * best)
        for (const p of packed) {
          const c = list.find((x) => x.ref === p.ref)!
          expect(p.tokens).toBe(p.level === "full" ? c.fullTokens : c.cardTokens)
        }
      }),
      { numRuns: 500 }
    )
  })

  it("gives cards to as many items as fit before any full content, then upgrades the best", () => {
    const list: Array<PackCandidate> = [
      { ref: "a", type: "skill", family: "a", cardTokens: 20, fullTokens: 500, score: 1 },
      { ref: "b", type: "skill", family: "b", cardTokens: 20, fullTokens: 100, score: 0.9 },
      { ref: "c", type: "knowledge", family: "c", cardTokens: 20, fullTokens: 3000, score: 0.8 },
      { ref: "d", type: "knowledge", family: "d", cardTokens: 20, fullTokens: 200, score: 0.7 },
      { ref: "e", type: "command", family: "e", cardTokens: 20, fullTokens: 10, score: 0.3 }
    ]
    expect(pack(list, { budget: 1000, maxItems: 10, maxFull: 3, fullScoreRatio: 0.6 })).toEqual([
      { ref: "a", level: "full", tokens: 500 },
      { ref: "b", level: "card", tokens: 20 }, // a skill is already full: diverse types
      { ref: "c", level: "card", tokens: 20 }, // too large for what is left
      { ref: "d", level: "full", tokens: 200 },
      { ref: "e", level: "card", tokens: 20 } // a weak match: its card only
    ])
  })

  it("one full member per family: a skill and its own reference", () => {
    const list: Array<PackCandidate> = [
      { ref: "s//pdf", type: "skill", family: "s//pdf", cardTokens: 10, fullTokens: 50, score: 1 },
      { ref: "s//pdf/references/forms", type: "reference", family: "s//pdf", cardTokens: 10, fullTokens: 50, score: 1 }
    ]
    expect(pack(list, { budget: 1000, maxItems: 10, maxFull: 3, fullScoreRatio: 0 }).map((p) => p.level)).toEqual(["full", "card"])
  })

  it("a budget too small for anything gives nothing", () => {
    expect(pack([{ ref: "a", family: "a", cardTokens: 30, fullTokens: 40, score: 1 }], { budget: 20, maxItems: 5, maxFull: 2, fullScoreRatio: 0 })).toEqual([])
  })
})

describe("familyOf", () => {
  const skills = [{ ref: "s//pdf", files: ["/r/pdf/SKILL.md", "/r/pdf/references/forms.md", "/r/pdf/scripts/fill.py"] }]
  it("a reference document belongs to the skill that lists its file", () => {
    expect(familyOf({ ref: "s//pdf/references/forms", path: "/r/pdf/references/forms.md" }, skills)).toBe("s//pdf")
  })
  it("anything else is its own family", () => {
    expect(familyOf({ ref: "s//pdf", path: "/r/pdf/SKILL.md" }, skills)).toBe("s//pdf")
    expect(familyOf({ ref: "s//pdfx/notes", path: "/r/pdfx/notes.md" }, skills)).toBe("s//pdfx/notes")
    expect(familyOf({ ref: "s//pdf/other", path: "/r/pdf/other.md" }, skills)).toBe("s//pdf/other")
  })
})
