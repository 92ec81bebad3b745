import { normalize, foldDiacritics, terms, type QueryGroup } from "./Query.js"
import { idf, type BeliefClass, type RankingFeatures } from "./Ranking.js"
import { relatedStems } from "./RelatedTerms.js"
import { isDeprecated, isHistorical } from "./Search.js"
import { normalizeTag } from "./Tag.js"

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
  /** Lexical diversity from the index (TextSignals.textDiversity); absent for rows indexed before it was measured. */
  readonly diversity?: number | undefined
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
 * Stems of a field's text (names, tags, aliases, descriptions, hints): the
 * same items come back search after search, and tokenising them again is most
 * of a search's own work. Bounded; cleared when full.
 */
const fieldTerms = new Map<string, ReadonlyArray<string>>()
export const termsOf = (text: string): ReadonlyArray<string> => {
  const known = fieldTerms.get(text)
  if (known !== undefined) return known
  if (fieldTerms.size >= 20_000) fieldTerms.clear()
  const found = terms(text)
  fieldTerms.set(text, found)
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

/** Share of the query's groups for which `test` holds (as `share` of the flags, without building them). */
const shareOf = <A>(groups: ReadonlyArray<A>, test: (group: A) => boolean): number => {
  if (groups.length === 0) return 0
  let hits = 0
  for (const group of groups) if (test(group)) hits++
  return hits / groups.length
}

/** A label equals a group: its stems, or one of its other spellings alone. */
const labelIs = (label: ReadonlyArray<string>, group: QueryGroup): boolean => {
  if (sameSequence(label, group.stems)) return true
  if (label.length !== 1) return false
  for (const a of group.alternatives) if (label[0] === a.stem) return true
  return false
}

/** Per group of a query: its related words (domain/RelatedTerms.ts) by their first stem. Built once per query. */
type RelatedIndex = ReadonlyMap<string, ReadonlyArray<{ readonly group: number; readonly seq: ReadonlyArray<string> }>>
const relatedIndexes = new WeakMap<ReadonlyArray<QueryGroup>, RelatedIndex>()

const relatedIndexOf = (groups: ReadonlyArray<QueryGroup>): RelatedIndex => {
  const known = relatedIndexes.get(groups)
  if (known !== undefined) return known
  const index = new Map<string, Array<{ readonly group: number; readonly seq: ReadonlyArray<string> }>>()
  groups.forEach((g, i) => {
    // A phrase has no related words: only a single word is looked up.
    if (g.phrase || g.stems.length !== 1) return
    for (const seq of relatedStems(g.stems[0]!)) {
      const list = index.get(seq[0]!) ?? []
      list.push({ group: i, seq })
      index.set(seq[0]!, list)
    }
  })
  relatedIndexes.set(groups, index)
  return index
}

/**
 * IDF-weighted share of the groups the item lacks (per the index) whose
 * related words are in its labels (`fields`: stems of name, tags, aliases,
 * description, hints, asked for one at a time). 0 for a one-word query:
 * there coverage is relevance. Each field is read once, a lookup per word.
 */
const relatedShare = (
  groups: ReadonlyArray<QueryGroup>,
  matched: ReadonlyArray<boolean>,
  weights: ReadonlyArray<number>,
  total: number,
  fields: ReadonlyArray<() => ReadonlyArray<string>>
): number => {
  if (weights.length <= 1 || total <= 0) return 0
  const index = relatedIndexOf(groups)
  if (index.size === 0) return 0
  let lacking = 0
  const open: Array<boolean> = []
  for (let i = 0; i < weights.length; i++) {
    const wanted = matched[i] !== true
    open.push(wanted)
    if (wanted) lacking++
  }
  if (lacking === 0) return 0
  let found = 0
  for (const field of fields) {
    const stems = field()
    for (let j = 0; j < stems.length && lacking > 0; j++) {
      const entries = index.get(stems[j]!)
      if (entries === undefined) continue
      for (const { group, seq } of entries) {
        if (open[group] !== true) continue
        let all = true
        for (let k = 1; k < seq.length && all; k++) all = stems[j + k] === seq[k]
        if (!all) continue
        open[group] = false
        lacking--
        found += weights[group]!
      }
    }
    if (lacking === 0) break
  }
  return found / total
}

/**
 * The ranking features of one candidate. Runs for every candidate of every
 * search: loops rather than intermediate arrays, same arithmetic in the same order.
 */
export const measure = (query: RankedQuery, item: MatchableItem, lexical: number, matched: ReadonlyArray<boolean>, context: MatchContext): RankingFeatures => {
  const weights = context.weights
  let total = 0
  let covered = 0
  for (let i = 0; i < weights.length; i++) {
    total += weights[i]!
    covered += matched[i] === true ? weights[i]! : 0
  }
  const relevance = context.bestLexical > 0 ? lexical / context.bestLexical : 0
  // With one word every candidate covers the query: coverage tells nothing, and the score follows relevance alone.
  const coverage = weights.length <= 1 ? relevance : total > 0 ? covered / total : share(matched)
  const utility = item.utility === undefined ? undefined : { value: item.utility.value, ageMs: Math.max(0, context.nowMs - (Date.parse(item.utility.at) || context.nowMs)) }
  const base = { relevance, coverage, type: item.type, quality: item.quality, utility, belief: beliefOf(item), stale: isStale(item, context.nowMs), diversity: item.diversity }
  if (query._tag === "Words") {
    const name = termsOf(item.name)
    const labelStems: Array<ReadonlyArray<string>> = []
    for (const tag of item.tags) labelStems.push(termsOf(normalizeTag(tag)))
    for (const alias of item.aliases) labelStems.push(termsOf(alias))
    const whole = query.allStems
    const fields = [() => name, ...labelStems.map((l) => () => l), () => termsOf(item.description ?? ""), ...item.hints.map((h) => () => termsOf(h))]
    return {
      ...base,
      relatedCoverage: relatedShare(query.groups, matched, weights, total, fields),
      exactName: whole.length > 0 && sameSequence(name, whole),
      exactAlias: whole.length > 0 && labelStems.some((l) => sameSequence(l, whole)),
      nameCoverage: shareOf(query.groups, (g) => groupIn(g, name)),
      tagMatch: shareOf(query.groups, (g) => labelStems.some((l) => labelIs(l, g)))
    }
  }
  const labels = [...item.tags.map(normalizeTag), ...item.aliases]
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

/** The short fields a hit's `why` names, in weight order. */
const FIELDS = ["name", "description", "tags", "hints"] as const

/**
 * The fields that matched, in weight order, for a hit's `why`: a group found
 * by the index but in none of the short fields was found in the body
 * (`content`).
 */
export const matchedFields = (query: RankedQuery, item: MatchableItem, matched: ReadonlyArray<boolean>): ReadonlyArray<string> => {
  const values = [item.name, item.description ?? "", [...item.tags.map(normalizeTag), ...item.aliases].join(" "), item.hints.join(" ")]
  const found = FIELDS.map(() => false)
  let inBody = false
  /** One matched group or segment: the fields it occurs in, or the body when none. */
  const note = (occursIn: (field: number) => boolean) => {
    let anywhere = false
    for (let f = 0; f < FIELDS.length; f++) {
      if (occursIn(f)) {
        found[f] = true
        anywhere = true
      }
    }
    if (!anywhere) inBody = true
  }
  if (query._tag === "Words") {
    const stems = values.map(termsOf)
    query.groups.forEach((group, i) => {
      if (matched[i] === true) note((f) => groupIn(group, stems[f]!))
    })
  } else {
    const folded = values.map(text)
    query.segments.map(text).forEach((segment, i) => {
      if (matched[i] === true) note((f) => folded[f]!.includes(segment))
    })
  }
  const fields: Array<string> = FIELDS.filter((_, f) => found[f])
  if (inBody) fields.push("content")
  return fields
}
