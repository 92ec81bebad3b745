import * as fc from "fast-check"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { groupWeights, matchedFields, measure } from "../../src/domain/MatchFeatures.js"
import { parseQuery } from "../../src/domain/Query.js"
import { compareRanked, fuseRanks, idf, rank, RANKING, utilityFactor, type RankingFeatures } from "../../src/domain/Ranking.js"
import { meanScores, scoreRanking } from "../../src/domain/RankMetrics.js"

const unit = fc.double({ min: 0, max: 1, noNaN: true })
const features: fc.Arbitrary<RankingFeatures> = fc.record({
  relevance: unit,
  coverage: unit,
  exactName: fc.boolean(),
  exactAlias: fc.boolean(),
  nameCoverage: unit,
  tagMatch: unit,
  type: fc.option(fc.constantFrom("skill", "command", "knowledge", "agent", "memory"), { nil: undefined }),
  quality: fc.option(fc.constantFrom("curated", "generated", "proposed"), { nil: undefined }),
  utility: fc.option(fc.record({ value: unit, ageMs: fc.integer({ min: 0, max: 400 * 86_400_000 }) }), { nil: undefined }),
  belief: fc.constantFrom("current", "deprecated", "historical"),
  stale: fc.boolean()
})

describe("rank", () => {
  it("keeps scores in [0, 1] and the ordering value finite, whatever the features", () => {
    fc.assert(fc.property(features, (f) => {
      const r = rank(f)
      expect(r.score).toBeGreaterThanOrEqual(0)
      expect(r.score).toBeLessThanOrEqual(1)
      expect(Number.isFinite(r.raw)).toBe(true)
      expect(r.score).toBe(Math.min(1, Math.max(0, r.raw)))
    }))
  })

  it("never ranks an item lower for matching more of the query or matching it better", () => {
    fc.assert(fc.property(features, unit, unit, (f, a, b) => {
      expect(rank({ ...f, relevance: Math.max(a, b) }).raw).toBeGreaterThanOrEqual(rank({ ...f, relevance: Math.min(a, b) }).raw)
      expect(rank({ ...f, coverage: Math.max(a, b) }).raw).toBeGreaterThanOrEqual(rank({ ...f, coverage: Math.min(a, b) }).raw)
      expect(rank({ ...f, exactName: true }).raw).toBeGreaterThanOrEqual(rank({ ...f, exactName: false, exactAlias: false }).raw)
    }))
  })

  it("bounds what the boosts can add: a current item can gain at most the sum of the table's boosts", () => {
    const maxBoost = RANKING.exactName + RANKING.nameCoverage + RANKING.tagMatch + RANKING.actionableType + RANKING.curated
    fc.assert(fc.property(features, (f) => {
      const plain = { ...f, exactName: false, exactAlias: false, nameCoverage: 0, tagMatch: 0, type: undefined, quality: undefined, utility: undefined, belief: "current" as const, stale: false }
      expect(rank({ ...f, utility: undefined, belief: "current", stale: false }).raw - rank(plain).raw).toBeLessThanOrEqual(maxBoost + 1e-9)
    }))
  })

  it("caps replaced and deprecated knowledge below the ceilings of the table", () => {
    fc.assert(fc.property(features, (f) => {
      expect(rank({ ...f, belief: "historical" }).raw).toBeLessThanOrEqual(RANKING.historicalCeiling)
      expect(rank({ ...f, belief: "deprecated" }).raw).toBeLessThanOrEqual(RANKING.deprecatedCeiling)
    }))
  })

  it("utility multiplies by at most 1 ± range, is neutral at 0.5 and fades with age", () => {
    fc.assert(fc.property(unit, fc.integer({ min: 0, max: 10_000_000_000 }), (value, ageMs) => {
      const factor = utilityFactor({ value, ageMs })
      expect(factor).toBeGreaterThanOrEqual(1 - RANKING.utilityRange - 1e-12)
      expect(factor).toBeLessThanOrEqual(1 + RANKING.utilityRange + 1e-12)
      expect(Math.abs(utilityFactor({ value, ageMs: ageMs + 86_400_000 * 60 }) - 1)).toBeLessThanOrEqual(Math.abs(factor - 1) + 1e-12)
    }))
    expect(utilityFactor({ value: 0.5, ageMs: 0 })).toBe(1)
    expect(utilityFactor({ value: 1, ageMs: 0 })).toBeCloseTo(1 + RANKING.utilityRange)
  })

  it("reports the signals that applied", () => {
    const r = rank({ relevance: 1, coverage: 1, exactName: true, exactAlias: false, nameCoverage: 1, tagMatch: 0, type: "skill", quality: "curated", belief: "historical", stale: true })
    expect(r.signals).toEqual(["exact-name", "type:skill", "quality:curated", "belief:historical", "stale"])
  })

  it("orders by the ranking value, ties by ref", () => {
    expect([{ raw: 0.5, ref: "b" }, { raw: 0.9, ref: "c" }, { raw: 0.5, ref: "a" }].sort(compareRanked).map((r) => r.ref)).toEqual(["c", "a", "b"])
  })
})

describe("docs/search.md", () => {
  it("shows every constant of the ranking table with its current value", () => {
    const doc = readFileSync(new URL("../../docs/search.md", import.meta.url), "utf8")
    const shown = (value: number) => doc.includes(String(value))
    const numbers = Object.entries(RANKING).flatMap(([key, value]) => (typeof value === "number" ? [[key, value] as const] : []))
    expect(numbers.filter(([, value]) => !shown(value) && !doc.includes(`±${value * 100}%`) && !doc.includes(`× ${value}`))).toEqual([])
  })
})

describe("fuseRanks", () => {
  it("orders the union of ranked lists by reciprocal rank, ties by ref", () => {
    expect(fuseRanks([["a", "b", "c"], ["c", "d"]])).toEqual(["c", "a", "b", "d"])
    expect(fuseRanks([["b"], ["a"]])).toEqual(["a", "b"])
  })
})

describe("idf and measure", () => {
  it("idf is positive and falls as a term gets commoner", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (n, raw) => {
      const df = Math.min(raw, n)
      expect(idf(df, n)).toBeGreaterThan(0)
      if (df < n) expect(idf(df, n)).toBeGreaterThan(idf(df + 1, n))
    }))
  })

  const item = { name: "docker-homelab", description: "Run compose services", tags: ["docker", "docker compose"], aliases: [], hints: ["Troubleshooting"], type: "skill" }
  const words = (q: string) => {
    const parsed = parseQuery(q)
    if (parsed._tag !== "Words") throw new Error(q)
    return parsed
  }

  it("measures coverage by IDF, exact names and aliases, name coverage and tag matches", () => {
    const query = words("docker homelab")
    const f = measure(query, item, 5, [true, true], { bestLexical: 10, weights: groupWeights([3, 1], 100), nowMs: 0 })
    expect(f).toMatchObject({ relevance: 0.5, coverage: 1, exactName: true, nameCoverage: 1, tagMatch: 0.5, type: "skill", belief: "current", stale: false })
    const partial = measure(query, item, 5, [true, false], { bestLexical: 10, weights: groupWeights([3, 1], 100), nowMs: 0 })
    expect(partial.coverage).toBeGreaterThan(0)
    expect(partial.coverage).toBeLessThan(0.5)
    expect(measure(words("docker compose"), item, 1, [true, true], { bestLexical: 1, weights: [1, 1], nowMs: 0 }).exactAlias).toBe(true)
    // One word: every candidate contains it, so coverage follows relevance.
    expect(measure(words("docker"), item, 2, [true], { bestLexical: 8, weights: [1], nowMs: 0 }).coverage).toBe(0.25)
  })

  it("classifies belief and staleness", () => {
    const context = { bestLexical: 1, weights: [1], nowMs: Date.parse("2026-01-01") }
    const q = words("docker")
    expect(measure(q, { ...item, supersededBy: "b//x" }, 1, [true], context).belief).toBe("historical")
    expect(measure(q, { ...item, beliefState: "deprecated" }, 1, [true], context).belief).toBe("deprecated")
    expect(measure(q, { ...item, status: "deprecated" }, 1, [true], context).belief).toBe("deprecated")
    expect(measure(q, { ...item, staleAfter: "2025-06-01" }, 1, [true], context).stale).toBe(true)
    expect(measure(q, { ...item, staleAfter: "2027-06-01" }, 1, [true], context).stale).toBe(false)
  })

  it("names the fields that matched, and content for a word found only in the body", () => {
    expect(matchedFields(words("docker troubleshooting"), item, [true, true])).toEqual(["name", "tags", "hints"])
    expect(matchedFields(words("docker volumes"), item, [true, true])).toEqual(["name", "tags", "content"])
    expect(matchedFields({ _tag: "Substring", segments: ["ompos"] }, item, [true])).toEqual(["description", "tags"])
  })
})

describe("scoreRanking (the curate-golden metric)", () => {
  const judgment = { relevant: ["a", "b"], banned: ["x"], limit: 3 }

  it("scores an ideal list 1 and an empty one 0.2", () => {
    expect(scoreRanking(["a", "b"], judgment).composite).toBe(1)
    expect(scoreRanking([], judgment)).toMatchObject({ ndcg: 0, recall: 0, mrr: 0, noLeapfrog: 1, composite: 0.2 })
  })

  it("counts a banned ref above the worst relevant one as a leapfrog; relevant refs beyond k do not count for nDCG or recall", () => {
    expect(scoreRanking(["a", "x", "b"], judgment)).toMatchObject({ leapfrogCount: 1, noLeapfrog: 0 })
    expect(scoreRanking(["x", "y", "z", "a"], judgment)).toMatchObject({ ndcg: 0, recall: 0, mrr: 0.25, leapfrogCount: 1 })
  })

  it("means each score", () => {
    const mean = meanScores([scoreRanking(["a", "b"], judgment), scoreRanking([], judgment)])
    expect(mean.composite).toBeCloseTo(0.6)
  })
})
