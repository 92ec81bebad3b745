import { describe, expect, it } from "vitest"
import { feedbackShare, feedbackTerms, isWeak } from "../../src/domain/Feedback.js"
import { termsOf } from "../../src/domain/MatchFeatures.js"
import { parseQuery, type QueryGroup } from "../../src/domain/Query.js"
import { RANKING } from "../../src/domain/Ranking.js"

/**
 * Pseudo-relevance feedback over labels (decision 0046), measured and left
 * off: the pure parts on nl/too-many-requests of the natural-language set.
 */
const groupsOf = (q: string): ReadonlyArray<QueryGroup> => {
  const parsed = parseQuery(q)
  if (parsed._tag !== "Words") throw new Error("expected words")
  return parsed.groups
}

const question = groupsOf("clients are getting 429 too many requests errors")
const rateLimiting = { name: "Rate limiting", description: "API rate limiting with a token bucket: 429 Too Many Requests responses", tags: ["api", "rate-limit", "http"], aliases: [] }
const apiRateLimit = { name: "API rate limit", description: "The public API allows 100 requests per minute per token", tags: ["api", "rate-limit"], aliases: [] }
const decoy = { name: "Load testing history", description: "How the team came to load testing", tags: ["history"], aliases: [] }

describe("pseudo-relevance feedback over labels", () => {
  it("is off in the ranking table: it let a decoy above a relevant item on the held-out half", () => {
    expect(RANKING.feedbackWeight).toBe(0)
  })

  it("reads the best match's tags, not its name, and nothing the question already says", () => {
    const terms = feedbackTerms(question, rateLimiting)
    expect(terms).toEqual(["api", "rate", "limit", "http"])
    expect(feedbackTerms(groupsOf("rate limit api http errors"), rateLimiting)).toEqual([])
  })

  it("scores another answer by the share of those labels in its name, tags and description", () => {
    const terms = feedbackTerms(question, rateLimiting)
    expect(feedbackShare(terms, apiRateLimit, termsOf)).toBe(0.75)
    expect(feedbackShare(terms, decoy, termsOf)).toBe(0)
    expect(feedbackShare([], apiRateLimit, termsOf)).toBe(0)
  })

  it("applies only to a question of several words whose best match misses some", () => {
    expect(isWeak(question.length, 0.8)).toBe(true)
    expect(isWeak(question.length, 1)).toBe(false)
    expect(isWeak(2, 0.5)).toBe(false)
  })
})
