import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { batchQuestions, priorAnswerOf, type PriorAnswer, type Question } from "../../../src/domain/scope/Questions.js"

// R-SCP-1 (at most the budget, ranked, the rest kept open) and R-SCP-4 (nothing asked twice).

const q = (id: string, source: Question["source"], asked: string, count = 0): Question => ({ id, source, asked, path: `${id}.md`, count, answerWith: "" })

describe("batchQuestions", () => {
  it("ranks recurring failures by count, then open questions, then revisits, and cuts at the budget keeping the rest", () => {
    const batch = batchQuestions([
      q("revisit/03", "revisit", "Rule 03's revisit date has come: keep it, change it, or retire it?"),
      q("question/b", "open-question", "Who owns billing?"),
      q("failure/x", "recurrence", "x happened twice", 2),
      q("failure/y", "recurrence", "y happened three times", 3),
      q("question/a", "open-question", "Which currency do refunds use?")
    ], [], 3)
    expect(batch.asked.map((x) => x.id)).toEqual(["failure/y", "failure/x", "question/a"])
    expect(batch.kept.map((x) => x.id)).toEqual(["question/b", "revisit/03"])
  })

  it("shows a question matching a prior answer with that answer instead of asking it", () => {
    const prior: Array<PriorAnswer> = [{ ref: "question/refunds", asked: "Which currency do refunds use?", answer: "EUR" }, { ref: "question/r3", asked: "", answer: "keep", about: "revisit/03" }]
    const batch = batchQuestions([q("question/again", "open-question", "What currency do refunds use?"), q("revisit/03", "revisit", "anything"), q("question/other", "open-question", "Who owns billing?")], prior, 5)
    expect(batch.asked.map((x) => x.id)).toEqual(["question/other"])
    expect(batch.answered.map((a) => [a.question.id, a.answer.ref])).toEqual([["question/again", "question/refunds"], ["revisit/03", "question/r3"]])
  })

  it("a recurrence is answered by a decision on it only, never by similar wording", () => {
    expect(priorAnswerOf(q("failure/a", "recurrence", "This has now happened twice. Should it become a rule, a skill, or neither?", 2), [{ ref: "question/z", asked: "This has now happened twice. Should it become a rule, a skill, or neither?", answer: "rule" }])).toBeUndefined()
  })

  it("never prints more than the budget and loses nothing (property)", () => {
    const question = fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), source: fc.constantFrom("recurrence" as const, "open-question" as const, "revisit" as const), asked: fc.lorem({ maxCount: 8 }), count: fc.nat(9) })
    fc.assert(fc.property(fc.uniqueArray(question, { selector: (x) => x.id, maxLength: 30 }), fc.nat(10), (raw, budget) => {
      const batch = batchQuestions(raw.map((r) => ({ ...r, path: "p", answerWith: "" })), [], budget)
      expect(batch.asked.length).toBeLessThanOrEqual(budget)
      expect(batch.asked.length + batch.kept.length + batch.answered.length).toBe(raw.length)
    }))
  })
})
