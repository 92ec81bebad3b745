import { tokenize } from "./Query.js"
import { RANKING } from "./Ranking.js"

/**
 * What indexing measures in an item's text so that keyword stuffing does not
 * pay (issue 25; spec 04 §3 step 4): the words index gets each field with
 * repeats beyond a cap left out (term-frequency saturation per field, and a
 * field length that repeats do not pad), and every item a lexical diversity
 * the ranking table turns into a penalty. Pure; computed once at index time.
 */

/** Printable ASCII, as Query.ts decides that normalisation is only lower-casing. */
const NON_ASCII = /[^ -~\t\n\r]/
const ASCII_WORD = /[a-z0-9]+/g

/**
 * The index tokenizer's words (Query.ts `tokenize`), with printable ASCII
 * matched by a plain regex: there, lower-casing is all normalisation does and
 * `[\p{L}\p{N}\p{Co}]` is exactly `[a-z0-9]`, and the Unicode-property
 * regex was the build's most expensive (docs/decisions/0044).
 */
export const indexWords = (text: string): ReadonlyArray<string> =>
  NON_ASCII.test(text) ? tokenize(text) : text.toLowerCase().match(ASCII_WORD) ?? []

/** The folded words of a text, at most `limit` (the index tokenizer's runs of letters and digits). */
const wordsOf = (text: string, limit: number): ReadonlyArray<string> => {
  const words = indexWords(text.length > limit * 12 ? text.slice(0, limit * 12) : text)
  return words.length > limit ? words.slice(0, limit) : words
}

const diversityOf = (words: ReadonlyArray<string>): number => {
  if (words.length < RANKING.diversityMinWords) return 1
  const distinct = new Set(words).size
  return Math.round(Math.min(1, distinct / Math.pow(words.length, RANKING.diversityHeaps)) * 1000) / 1000
}

/**
 * Lexical diversity in (0, 1]: distinct words over total^RANKING.diversityHeaps
 * among the text's first RANKING.diversityWords words. Prose gains new words
 * at about that power of its length (Heaps' law), so every page of prose
 * scores about 1 whatever its length; a text that repeats a few phrases
 * scores near 0.1. Texts under RANKING.diversityMinWords words are too short
 * to judge: 1.
 */
export const textDiversity = (text: string): number => diversityOf(wordsOf(text, RANKING.diversityWords))

/** The words of an item's name, description and body, each tokenized once for its diversity and its saturated fields. */
export interface ItemWords {
  readonly name: ReadonlyArray<string>
  readonly description: ReadonlyArray<string>
  readonly content: ReadonlyArray<string>
}

interface ItemText {
  readonly name: string
  readonly description: string
  readonly content: string
}

export const itemWords = (fields: ItemText): ItemWords => ({
  name: indexWords(fields.name),
  description: indexWords(fields.description),
  content: indexWords(fields.content)
})

/**
 * The diversity of an item: its name, description and body read as one text
 * (joined by newlines). A newline ends a word and blocks normalisation and
 * case context, so that text's words are the fields' words one after
 * another — unless the joined text is long enough to be cut, which is
 * measured on the joined text itself.
 */
export const itemDiversity = (fields: ItemText, words?: ItemWords): number => {
  const limit = RANKING.diversityWords
  if (fields.name.length + fields.description.length + fields.content.length + 2 > limit * 12) {
    return textDiversity(`${fields.name}\n${fields.description}\n${fields.content}`)
  }
  const w = words ?? itemWords(fields)
  const all = w.name.length + w.description.length + w.content.length <= limit
    ? [...w.name, ...w.description, ...w.content]
    : [...w.name, ...w.description, ...w.content].slice(0, limit)
  return diversityOf(all)
}

/**
 * A field's text for the words index with every word after its
 * RANKING.fieldTermCap-th occurrence left out: bm25 sees at most that term
 * frequency per field, and repeats add nothing to the field's length. Text
 * with no word over the cap comes back unchanged (most fields); otherwise the
 * kept words, folded as the index tokenizer folds them, joined by spaces (the
 * tokenizer reads the same words back).
 */
export const saturateField = (text: string, words: ReadonlyArray<string> = indexWords(text)): string => {
  const cap = RANKING.fieldTermCap
  if (words.length <= cap) return text
  // One pass: the kept words are gathered while counting (most content fields have a word over the cap).
  const counts = new Map<string, number>()
  const kept: Array<string> = []
  let over = false
  for (const w of words) {
    const n = (counts.get(w) ?? 0) + 1
    counts.set(w, n)
    if (n <= cap) kept.push(w)
    else over = true
  }
  return over ? kept.join(" ") : text
}
