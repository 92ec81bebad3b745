import { tokenize } from "./Query.js"
import { RANKING } from "./Ranking.js"

/**
 * What indexing measures in an item's text so that keyword stuffing does not
 * pay (issue 25; spec 04 §3 step 4): the words index gets each field with
 * repeats beyond a cap left out (term-frequency saturation per field, and a
 * field length that repeats do not pad), and every item a lexical diversity
 * the ranking table turns into a penalty. Pure; computed once at index time.
 */

/** The folded words of a text, at most `limit` (the index tokenizer's runs of letters and digits). */
const wordsOf = (text: string, limit: number): ReadonlyArray<string> => {
  const words = tokenize(text.length > limit * 12 ? text.slice(0, limit * 12) : text)
  return words.length > limit ? words.slice(0, limit) : words
}

/**
 * Lexical diversity in (0, 1]: distinct words over total^RANKING.diversityHeaps
 * among the text's first RANKING.diversityWords words. Prose gains new words
 * at about that power of its length (Heaps' law), so every page of prose
 * scores about 1 whatever its length; a text that repeats a few phrases
 * scores near 0.1. Texts under RANKING.diversityMinWords words are too short
 * to judge: 1.
 */
export const textDiversity = (text: string): number => {
  const words = wordsOf(text, RANKING.diversityWords)
  if (words.length < RANKING.diversityMinWords) return 1
  const distinct = new Set(words).size
  return Math.round(Math.min(1, distinct / Math.pow(words.length, RANKING.diversityHeaps)) * 1000) / 1000
}

/** The diversity of an item: its name, description and body read as one text. */
export const itemDiversity = (fields: { readonly name: string; readonly description: string; readonly content: string }): number =>
  textDiversity(`${fields.name}\n${fields.description}\n${fields.content}`)

/**
 * A field's text for the words index with every word after its
 * RANKING.fieldTermCap-th occurrence left out: bm25 sees at most that term
 * frequency per field, and repeats add nothing to the field's length. Text
 * with no word over the cap comes back unchanged (most fields); otherwise the
 * kept words, folded as the index tokenizer folds them, joined by spaces (the
 * tokenizer reads the same words back).
 */
export const saturateField = (text: string): string => {
  const cap = RANKING.fieldTermCap
  const words = tokenize(text)
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
