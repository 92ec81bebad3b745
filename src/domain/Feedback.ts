import { STOPWORDS, terms, type QueryGroup } from "./Query.js"
import { RANKING } from "./Ranking.js"
import { normalizeTag } from "./Tag.js"

/**
 * Pseudo-relevance feedback over labels (issue 25, vocabulary gaps;
 * docs/decisions/0046-vocabulary-gaps.md): when no candidate holds every
 * word of a longer question, the question's words are not the library's. The
 * best match's own labels — its tags and the words of its name, which its
 * author chose to say what it is about — are then read as more words of the
 * question, and every other candidate whose name, tags or description carries
 * them gains a bounded bonus. Pure; reads only the candidates already fetched
 * (no second statement, R-SRCH-1).
 */

/** The fields of a candidate feedback reads. */
export interface LabelledItem {
  readonly name: string
  readonly description?: string | undefined
  readonly tags: ReadonlyArray<string>
  readonly aliases: ReadonlyArray<string>
}

/**
 * The feedback terms: stems of the best item's tags and aliases, not in the
 * query and not function words. Not its name: near-name decoys share the
 * answer's name by construction, and name words lifted them on the tuning
 * half (nl/stuffed-screen-reader, nl/decoy-stress-test, nl/stuffed-cert).
 */
export const feedbackTerms = (groups: ReadonlyArray<QueryGroup>, best: LabelledItem): ReadonlyArray<string> => {
  const asked = new Set<string>()
  for (const g of groups) {
    for (const s of g.stems) asked.add(s)
    for (const a of g.alternatives) asked.add(a.stem)
  }
  const out: Array<string> = []
  for (const label of [...best.tags.map(normalizeTag), ...best.aliases]) {
    for (const t of terms(label)) {
      if (t.length < 2 || asked.has(t) || STOPWORDS.has(t) || out.includes(t)) continue
      out.push(t)
    }
  }
  return out.slice(0, RANKING.feedbackTerms)
}

/** The share of `expansion` found in an item's name, tags, aliases and description, in [0, 1]. */
export const feedbackShare = (expansion: ReadonlyArray<string>, item: LabelledItem, termsOf: (text: string) => ReadonlyArray<string>): number => {
  if (expansion.length === 0) return 0
  const seen = new Set<string>()
  for (const label of [item.name, item.description ?? "", ...item.tags.map(normalizeTag), ...item.aliases]) for (const t of termsOf(label)) seen.add(t)
  let hits = 0
  for (const t of expansion) if (seen.has(t)) hits++
  return hits / expansion.length
}

/** Whether the first pass is weak: a question of several words whose best match does not hold all of them. */
export const isWeak = (groups: number, bestCoverage: number): boolean => groups >= RANKING.feedbackMinGroups && bestCoverage < 1
