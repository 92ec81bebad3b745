import { stemmer } from "stemmer"

/**
 * The interrupt budget (spec 08 §7): at most N questions per pass (R-SCP-1),
 * ranked — recurring failures by count, then unanswered questions, then due
 * revisits — the rest kept open for the next pass, never dropped; and
 * nothing asked twice (R-SCP-4): a question that matches an answered
 * `question` record or a decision is shown with that answer instead. Pure.
 */

export type QuestionSource = "recurrence" | "open-question" | "revisit"

export interface Question {
  /** Stable across passes: the ledger ref or rule the question is about (`failure/<id>`, `question/<id>`, `revisit/<rule>`). */
  readonly id: string
  readonly source: QuestionSource
  readonly asked: string
  /** The file the question is about. */
  readonly path: string
  /** Occurrences for a recurrence (its rank); 0 otherwise. */
  readonly count: number
  readonly blocks?: string
  /** How to answer it. */
  readonly answerWith: string
}

export interface PriorAnswer {
  /** `question/<id>` or `decision/<id>`. */
  readonly ref: string
  readonly asked: string
  readonly answer: string
  /** The question id it answered, when it was recorded through `akm questions answer`. */
  readonly about?: string
}

export interface Answered {
  readonly question: Question
  readonly answer: PriorAnswer
}

export interface QuestionBatch {
  readonly budget: number
  /** This pass's batch, ranked: at most `budget`. */
  readonly asked: ReadonlyArray<Question>
  /** Ranked after the batch: kept open for the next pass. */
  readonly kept: ReadonlyArray<Question>
  /** Matched a prior answer: shown with it instead of being asked. */
  readonly answered: ReadonlyArray<Answered>
}

const SOURCE_RANK: Readonly<Record<QuestionSource, number>> = { recurrence: 0, "open-question": 1, revisit: 2 }

/** Recurring failures by count, then unanswered questions, then due revisits; ties by id so the order is stable. */
export const rankQuestions = (questions: ReadonlyArray<Question>): ReadonlyArray<Question> =>
  [...questions].sort((a, b) => SOURCE_RANK[a.source] - SOURCE_RANK[b.source] || b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

const STOP = new Set(["a", "an", "the", "is", "are", "be", "to", "of", "in", "on", "for", "it", "this", "that", "we", "do", "does", "should", "what", "which", "how", "and", "or", "with", "our", "its"])

/** A question's words, stemmed, without stop words: "Which currency do refunds use?" ≈ "What currency are refunds in?". */
export const questionTerms = (text: string): ReadonlySet<string> =>
  new Set(text.toLowerCase().normalize("NFKC").split(/[^\p{L}\p{N}]+/u).filter((w) => w !== "" && !STOP.has(w)).map((w) => stemmer(w)))

/** Jaccard similarity at or above this is the same question asked again. */
export const SAME_QUESTION = 0.8

export const similarity = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  if (a.size === 0 || b.size === 0) return 0
  let shared = 0
  for (const t of a) if (b.has(t)) shared++
  return shared / (a.size + b.size - shared)
}

/** The prior answer a question matches: recorded about its id, else the closest text at or above SAME_QUESTION. */
export const priorAnswerOf = (question: Question, prior: ReadonlyArray<PriorAnswer>): PriorAnswer | undefined => {
  const direct = prior.find((p) => p.about === question.id)
  if (direct !== undefined) return direct
  // Recurrence questions share their wording ("happened twice … rule, skill or neither?"): only a decision on the fingerprint answers one.
  if (question.source === "recurrence") return undefined
  const terms = questionTerms(question.asked)
  let best: { p: PriorAnswer; score: number } | undefined
  for (const p of prior) {
    const score = similarity(terms, questionTerms(p.asked))
    if (score >= SAME_QUESTION && (best === undefined || score > best.score)) best = { p, score }
  }
  return best?.p
}

/** The batch of one pass: searched against prior answers first, ranked, cut at the budget; the rest kept open. */
export const batchQuestions = (questions: ReadonlyArray<Question>, prior: ReadonlyArray<PriorAnswer>, budget: number): QuestionBatch => {
  const answered: Array<Answered> = []
  const open: Array<Question> = []
  for (const q of rankQuestions(questions)) {
    const match = priorAnswerOf(q, prior)
    if (match === undefined) open.push(q)
    else answered.push({ question: q, answer: match })
  }
  const cut = Math.max(0, budget)
  return { budget: cut, asked: open.slice(0, cut), kept: open.slice(cut), answered }
}
