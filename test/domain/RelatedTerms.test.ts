import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { measure, type MatchableItem, type RankedQuery } from "../../src/domain/MatchFeatures.js"
import { parseQuery, stem } from "../../src/domain/Query.js"
import { rank, RANKING, type RankingFeatures } from "../../src/domain/Ranking.js"
import { relatedStems } from "../../src/domain/RelatedTerms.js"

/**
 * Related developer vocabulary (decision 0051): the curated list, and how
 * weakly it counts. Fixtures are items of the natural-language set's tuning
 * half (nl/commit-wording, nl/naming-tables) and their look-alikes.
 */
const words = (q: string): RankedQuery => {
  const parsed = parseQuery(q)
  if (parsed._tag !== "Words") throw new Error("expected words")
  return parsed
}

const item = (name: string, description: string, tags: ReadonlyArray<string>, type = "knowledge"): MatchableItem => ({ name, description, tags, aliases: [], hints: [], type })

const commitMessages = item("Commit messages", "How to write commit messages: a short imperative subject and a body that explains why", ["git", "writing"])
const openPr = item("Open a pull request", "Open a pull request with a conventional title, description and checklist", ["git", "github"], "command")
/** commit-messages with its labels saying nothing related to "word" or "description": the related list has nothing to find. */
const commitTerse = item("Commit messages", "Imperative subject under 50 characters", ["git"])

const has = (from: string, to: string): boolean => relatedStems(stem(from)).some((seq) => seq.join(" ") === to.split(" ").map(stem).join(" "))

describe("related terms: the list", () => {
  it("relates a word to the other words of each of its senses, by stem", () => {
    expect(has("call", "name")).toBe(true)
    expect(has("naming", "call")).toBe(true)
    expect(has("call", "invoke")).toBe(true)
    expect(has("deleting", "remove")).toBe(true)
    expect(has("login", "sign in")).toBe(true)
    expect(has("429", "too many requests")).toBe(true)
  })

  it("keeps senses apart: calling a function is not running a script", () => {
    expect(has("call", "run")).toBe(false)
    expect(has("name", "invoke")).toBe(false)
  })

  it("relates a narrower word to a broader one, not back", () => {
    expect(has("css", "assets")).toBe(true)
    expect(has("assets", "css")).toBe(false)
  })

  it("has nothing for words outside it, and never the word itself", () => {
    expect(relatedStems(stem("kubernetes"))).toEqual([])
    expect(relatedStems(stem("call")).some((seq) => seq.length === 1 && seq[0] === stem("call"))).toBe(false)
  })

  it("finds a several-word term only as adjacent words", () => {
    const query = words("login timeout")
    const context = { bestLexical: 1, weights: [1, 1], nowMs: 0 }
    expect(measure(query, item("SSO", "Sign in with SSO", []), 1, [false, true], context).relatedCoverage).toBe(0.5)
    expect(measure(query, item("Forms", "Sign the form in time", []), 1, [false, true], context).relatedCoverage).toBe(0)
  })
})

describe("related terms: in the ranking features", () => {
  // "how should I word the description of a commit": groups word, description, commit (IDF as measured on the set).
  const question = words("how should I word the description of a commit")
  const weights = [5.5, 4.4, 2.55]
  const context = { bestLexical: 10, weights, nowMs: 0 }

  it("fires on an item lacking the question's words whose labels say related ones (write, explains)", () => {
    const f = measure(question, commitMessages, 6.5, [false, false, true], context)
    expect(f.relatedCoverage).toBeCloseTo((5.5 + 4.4) / (5.5 + 4.4 + 2.55), 6)
    expect(rank(f).signals).toContain("related-terms")
  })

  it("is silent on an item holding the words itself, on labels with no related word, and on a one-word query", () => {
    expect(measure(question, commitMessages, 10, [true, true, true], context).relatedCoverage).toBe(0)
    expect(measure(question, commitTerse, 6.5, [false, false, true], context).relatedCoverage).toBe(0)
    // open-pr holds "description" itself; "word" and "commit" have nothing related in its labels.
    expect(measure(question, openPr, 10, [false, true, false], context).relatedCoverage).toBe(0)
    expect(measure(words("call"), commitMessages, 5, [true], { ...context, weights: [1] }).relatedCoverage).toBe(0)
  })

  it("ranks the answer that says it in other words above the look-alike that shares one word (nl/commit-wording)", () => {
    const answer = rank(measure(question, commitMessages, 6.53, [false, false, true], context))
    const lookAlike = rank(measure(question, openPr, 10, [false, true, false], context))
    expect(answer.raw).toBeGreaterThan(lookAlike.raw)
    // Without the related words, the look-alike won: the case that motivates RANKING.relatedTerm.
    const before = rank({ ...measure(question, commitMessages, 6.53, [false, false, true], context), relatedCoverage: 0 })
    expect(before.raw).toBeLessThan(lookAlike.raw)
  })
})

describe("related terms: in rank", () => {
  const unit = fc.double({ min: 0, max: 1, noNaN: true })
  const base = (relevance: number, coverage: number): RankingFeatures => ({
    relevance, coverage, exactName: false, exactAlias: false, nameCoverage: 0, tagMatch: 0, belief: "current", stale: false
  })

  it("counts a word found through a related word below the word itself", () => {
    expect(RANKING.relatedTerm).toBeGreaterThan(0)
    expect(RANKING.relatedTerm).toBeLessThan(1)
    fc.assert(fc.property(unit, unit, unit, (relevance, coverage, part) => {
      const lacking = (1 - coverage) * part
      const throughRelated = rank({ ...base(relevance, coverage), relatedCoverage: lacking }).raw
      const itself = rank(base(Math.min(1, relevance + lacking), coverage + lacking)).raw
      expect(throughRelated).toBeLessThanOrEqual(itself + 1e-12)
      expect(throughRelated).toBeGreaterThanOrEqual(rank(base(relevance, coverage)).raw)
    }))
  })

  it("never lifts an item holding every word of the question past another holding them all equally", () => {
    const full = rank(base(0.9, 1)).raw
    expect(rank({ ...base(0.9, 1), relatedCoverage: 0 }).raw).toBe(full)
  })
})
