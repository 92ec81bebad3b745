/**
 * Packing search results into a token budget for `akm curate` (spec 04 §5):
 * cards for as many of the best items as fit, then full content for the best
 * few, one per family and per type. Pure arithmetic on token counts the
 * caller measured; the total never exceeds the budget (property-tested).
 */

export type PackLevel = "full" | "card"

export interface PackCandidate {
  readonly ref: string
  readonly type?: string | undefined
  /** Items of one family share this key: a skill and its own reference documents are one family. */
  readonly family: string
  /** Tokens of the item's card. */
  readonly cardTokens: number
  /** Tokens of the item's full content; undefined when it cannot be given in full. */
  readonly fullTokens?: number | undefined
  /** Search score in [0, 1]. */
  readonly score: number
}

export interface PackOptions {
  readonly budget: number
  /** Items in the result at most (cards and full). */
  readonly maxItems: number
  /** Items given in full at most. */
  readonly maxFull: number
  /** Only items scoring at least this share of the best score are given in full. */
  readonly fullScoreRatio: number
}

export interface Packed {
  readonly ref: string
  readonly level: PackLevel
  readonly tokens: number
}

/** A task description this short is a query already; longer ones also get a search per keyword. */
export const KEYWORD_FALLBACK_MIN_TERMS = 4

/**
 * Defaults of `akm curate`: a budget that fits an agent's working context, a
 * handful of full items, and full text only for close matches — a weak hit
 * (an incident checklist for "make http responses cacheable") is worth its
 * card, not a third of the budget.
 */
export const CURATE_DEFAULTS = { budget: 4000, maxItems: 10, maxFull: 3, fullScoreRatio: 0.6 } as const

/**
 * Chooses levels in rank order. First every candidate gets a card while
 * cards fit (so breadth is reserved before depth); then, best first, a card
 * is upgraded to full content when the rest of the budget holds it, it scores
 * close to the best, its family has no full member yet, and its type none
 * either (diverse types).
 * The result keeps the candidates' order.
 */
export const pack = (candidates: ReadonlyArray<PackCandidate>, options: PackOptions): ReadonlyArray<Packed> => {
  const budget = Math.max(0, Math.floor(options.budget))
  const chosen: Array<{ readonly candidate: PackCandidate; level: PackLevel; tokens: number }> = []
  let total = 0
  for (const candidate of candidates) {
    if (chosen.length >= options.maxItems) break
    const cost = Math.max(0, candidate.cardTokens)
    if (total + cost > budget) continue
    chosen.push({ candidate, level: "card", tokens: cost })
    total += cost
  }
  const floor = options.fullScoreRatio * Math.max(0, ...chosen.map((entry) => entry.candidate.score))
  const families = new Set<string>()
  const types = new Set<string>()
  let full = 0
  for (const entry of chosen) {
    if (full >= options.maxFull) break
    const { candidate } = entry
    const fullTokens = candidate.fullTokens
    if (fullTokens === undefined || candidate.score < floor || families.has(candidate.family) || types.has(candidate.type ?? "")) continue
    const cost = Math.max(0, fullTokens)
    if (total - entry.tokens + cost > budget) continue
    total += cost - entry.tokens
    entry.level = "full"
    entry.tokens = cost
    families.add(candidate.family)
    types.add(candidate.type ?? "")
    full++
  }
  return chosen.map(({ candidate, level, tokens }) => ({ ref: candidate.ref, level, tokens }))
}

/**
 * The family key of an item: the nearest skill above it (by ref) that lists
 * the item's file among its own files, else the item's own ref. `skills` are
 * the skills the caller knows of, with their files as absolute paths.
 */
export const familyOf = (
  ref: { readonly ref: string; readonly path: string },
  skills: ReadonlyArray<{ readonly ref: string; readonly files: ReadonlyArray<string> }>
): string => {
  const owner = skills
    .filter((skill) => skill.ref !== ref.ref && ref.ref.startsWith(`${skill.ref}/`) && skill.files.includes(ref.path))
    .sort((a, b) => b.ref.length - a.ref.length)[0]
  return owner?.ref ?? ref.ref
}
