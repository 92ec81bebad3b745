import { LABEL_WEIGHT, type GroupLexemes } from "./words.js"

/**
 * bm25 as FTS5 computes it (k1 1.2, b 0.75; a row's length is all its
 * tokens), over the occurrences a tsvector holds: each occurrence counts its
 * field's weight, so a name match weighs 10 and a content match 1 (spec 04
 * §1). A group is one phrase of the FTS5 expression; its alternatives add up,
 * a quoted phrase counts as often as its rarest word.
 */
const K1 = 1.2
const B = 0.75

export interface Occurrences {
  readonly lexeme: string
  readonly weights: ReadonlyArray<string>
}

export const inverseFrequency = (matching: number, documents: number): number => {
  const idf = Math.log((documents - matching + 0.5) / (matching + 0.5))
  return idf <= 0 ? 1e-6 : idf
}

const weighted = (o: Occurrences): number => o.weights.reduce((sum, label) => sum + (LABEL_WEIGHT[label] ?? 1), 0)

/** Per group, the weighted frequency of its lexemes in one item. */
export const groupFrequencies = (groups: ReadonlyArray<GroupLexemes>, occurrences: ReadonlyArray<Occurrences>): ReadonlyArray<number> =>
  groups.map((g) => {
    if (g.phrase) {
      const counts = g.exact.map((lexeme) => occurrences.filter((o) => o.lexeme === lexeme).reduce((sum, o) => sum + weighted(o), 0))
      return counts.length === 0 ? 0 : Math.min(...counts)
    }
    let sum = 0
    for (const o of occurrences) {
      if (g.exact.includes(o.lexeme) || g.prefixes.some((p) => o.lexeme.startsWith(p))) sum += weighted(o)
    }
    return sum
  })

/** `frequencies` from `at` on, one per group (the lists of postings.ts are read into one flat array). */
export const bm25 = (frequencies: ArrayLike<number>, inverse: ReadonlyArray<number>, length: number, averageLength: number, at = 0): number => {
  const norm = K1 * (1 - B + (B * length) / (averageLength > 0 ? averageLength : 1))
  let score = 0
  for (let i = 0; i < inverse.length; i++) {
    const f = frequencies[at + i] ?? 0
    if (f > 0) score += inverse[i]! * ((f * (K1 + 1)) / (f + norm))
  }
  return score
}
