import { normalize, foldDiacritics, terms, type QueryGroup } from "./Query.js"
import { idf, type BeliefClass, type RankingFeatures } from "./Ranking.js"
import { isDeprecated, isHistorical } from "./Search.js"

/**
 * What one query matched in one item (spec 04 §3 step 4): the features the
 * ranking table weighs and the `why` of a hit. Pure; computed from the short
 * fields (name, tags, aliases) and the index's per-group membership, never
 * from the body text, so it stays cheap for hundreds of candidates.
 */

/** The query as ranking sees it: word groups (with every word's stem for exact-name checks) or substring segments. */
export type RankedQuery =
  | { readonly _tag: "Words"; readonly groups: ReadonlyArray<QueryGroup>; readonly allStems: ReadonlyArray<string> }
  | { readonly _tag: "Substring"; readonly segments: ReadonlyArray<string> }

export interface MatchableItem {
  readonly name: string
  readonly description?: string | undefined
  readonly tags: ReadonlyArray<string>
  readonly aliases: ReadonlyArray<string>
  readonly hints: ReadonlyArray<string>
  readonly type?: string | undefined
  readonly quality?: string | undefined
  readonly beliefState?: string | undefined
  readonly supersededBy?: string | undefined
  readonly status?: string | undefined
  readonly staleAfter?: string | undefined
  readonly utility?: { readonly value: number; readonly at: string } | undefined
}

export interface MatchContext {
  /** The best lexical score among the candidates. */
  readonly bestLexical: number
  /** IDF per group or segment. */
  readonly weights: ReadonlyArray<number>
  readonly nowMs: number
}

/** IDF weights per group from the index's document frequencies. */
export const groupWeights = (documentFrequency: ReadonlyArray<number>, documentCount: number): ReadonlyArray<number> =>
  documentFrequency.map((df) => idf(df, Math.max(documentCount, df)))

/**
 * Stems of short fields (names, tags, aliases) by text: the same items come
 * back search after search, and tokenising them again is most of a search's
 * own work. Bounded; cleared when full.
 */
const shortTerms = new Map<string, ReadonlyArray<string>>()
const termsOf = (text: string): ReadonlyArray<string> => {
  const known = shortTerms.get(text)
  if (known !== undefined) return known
  if (shortTerms.size >= 20_000) shortTerms.clear()
  const found = terms(text)
  shortTerms.set(text, found)
  return found
}

const sameSequence = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => a.length === b.length && a.every((x, i) => x === b[i])

const text = (s: string): string => foldDiacritics(normalize(s))

/** A group occurs in a field's stems: the word or one of its other spellings; every stem, adjacent, for a phrase. */
const groupIn = (group: QueryGroup, stems: ReadonlyArray<string>): boolean => {
  if (!group.phrase) return group.stems.every((s) => stems.includes(s)) || group.alternatives.some((a) => stems.includes(a.stem))
  for (let i = 0; i + group.stems.length <= stems.length; i++) if (group.stems.every((s, j) => stems[i + j] === s)) return true
  return false
}

const beliefOf = (item: MatchableItem): BeliefClass => (isHistorical(item) ? "historical" : isDeprecated(item) ? "deprecated" : "current")

const isStale = (item: MatchableItem, nowMs: number): boolean => {
  if (item.status === "stale") return true
  if (item.staleAfter === undefined) return false
  const at = Date.parse(item.staleAfter)
  return Number.isFinite(at) && at < nowMs
}

const share = (flags: ReadonlyArray<boolean>): number => (flags.length === 0 ? 0 : flags.filter(Boolean).length / flags.length)

/** The ranking features of one candidate. */
export const measure = (query: RankedQuery, item: MatchableItem, lexical: number, matched: ReadonlyArray<boolean>, context: MatchContext): RankingFeatures => {
  const total = context.weights.reduce((a, b) => a + b, 0)
  const covered = context.weights.reduce((sum, w, i) => sum + (matched[i] === true ? w : 0), 0)
  const relevance = context.bestLexical > 0 ? lexical / context.bestLexical : 0
  const base = {
    relevance,
    // With one word every candidate covers the query: coverage tells nothing, and the score follows relevance alone.
    coverage: context.weights.length <= 1 ? relevance : total > 0 ? covered / total : share(matched),
    type: item.type,
    quality: item.quality,
    utility: item.utility === undefined ? undefined : { value: item.utility.value, ageMs: Math.max(0, context.nowMs - (Date.parse(item.utility.at) || context.nowMs)) },
    belief: beliefOf(item),
    stale: isStale(item, context.nowMs)
  }
  const labels = [...item.tags, ...item.aliases]
  if (query._tag === "Words") {
    const name = termsOf(item.name)
    const labelStems = labels.map(termsOf)
    const whole = query.allStems
    return {
      ...base,
      exactName: whole.length > 0 && sameSequence(name, whole),
      exactAlias: whole.length > 0 && labelStems.some((l) => sameSequence(l, whole)),
      nameCoverage: share(query.groups.map((g) => groupIn(g, name))),
      tagMatch: share(query.groups.map((g) => labelStems.some((l) => sameSequence(l, g.stems) || g.alternatives.some((a) => sameSequence(l, [a.stem])))))
    }
  }
  const name = text(item.name)
  const folded = query.segments.map(text)
  return {
    ...base,
    exactName: folded.length === 1 && name === folded[0],
    exactAlias: folded.length === 1 && labels.some((l) => text(l) === folded[0]),
    nameCoverage: share(folded.map((s) => name.includes(s))),
    tagMatch: share(folded.map((s) => labels.some((l) => text(l) === s)))
  }
}

/**
 * The fields that matched, in weight order, for a hit's `why`: a group found
 * by the index but in none of the short fields was found in the body
 * (`content`).
 */
export const matchedFields = (query: RankedQuery, item: MatchableItem, matched: ReadonlyArray<boolean>): ReadonlyArray<string> => {
  const fields: ReadonlyArray<readonly [string, string]> = [
    ["name", item.name],
    ["description", item.description ?? ""],
    ["tags", [...item.tags, ...item.aliases].join(" ")],
    ["hints", item.hints.join(" ")]
  ]
  const found = new Set<string>()
  let inBody = false
  if (query._tag === "Words") {
    const stems = fields.map(([field, value]) => [field, terms(value)] as const)
    query.groups.forEach((group, i) => {
      if (matched[i] !== true) return
      const where = stems.filter(([, s]) => groupIn(group, s)).map(([field]) => field)
      where.forEach((f) => found.add(f))
      if (where.length === 0) inBody = true
    })
  } else {
    const folded = fields.map(([field, value]) => [field, text(value)] as const)
    query.segments.map(text).forEach((segment, i) => {
      if (matched[i] !== true) return
      const where = folded.filter(([, value]) => value.includes(segment)).map(([field]) => field)
      where.forEach((f) => found.add(f))
      if (where.length === 0) inBody = true
    })
  }
  return [...fields.map(([field]) => field).filter((f) => found.has(f)), ...(inBody ? ["content"] : [])]
}
