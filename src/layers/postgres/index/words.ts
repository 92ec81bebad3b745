import type { QueryGroup } from "../../../domain/Query.js"
import { foldDiacritics, normalize, stem, terms } from "../../../domain/Query.js"
import { searchFields, TRIGRAM_CONTENT_CHARS } from "../../../domain/Search.js"
import { saturateField } from "../../../domain/TextSignals.js"
import type { IndexDocument } from "../../../domain/IndexDocument.js"

/**
 * The words of an item as a tsvector literal, and queries as tsquery literals
 * (decision 0034). Both are built here, not by a text-search configuration:
 * the lexemes are the Porter stems domain/Query.ts makes, exactly the terms
 * index.db's `porter unicode61 remove_diacritics 2` table holds, so a query
 * matches the same items on both backends. Every lexeme is quoted: query text
 * is never tsquery syntax (spec 00 §4.2).
 */

/** Field weights: name A, description B, tags (with aliases) and hints C, content D (spec 04 §1: 10/5/3/2/1). */
const FIELDS = [["name", "A"], ["description", "B"], ["tags", "C"], ["hints", "C"], ["content", "D"]] as const

/** ts_rank's weights for {D, C, B, A}: the SQLite bm25 weights 1/2.5/5/10 scaled to A = 1. */
export const RANK_WEIGHTS = "{0.1, 0.25, 0.5, 1.0}"

/** PostgreSQL's bounds: positions above 16383 are clamped, a lexeme is under 2 KB, a tsvector under 1 MB. */
const MAX_POSITION = 16_383
const MAX_LEXEME_BYTES = 2_000
const MAX_VECTOR_BYTES = 900_000

const quote = (lexeme: string): string => `'${lexeme.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`

/** The tsvector literal of a document's fields and how many tokens it holds (its length for ranking). */
export const wordsOf = (doc: IndexDocument): { readonly vector: string; readonly length: number } => {
  const fields = searchFields(doc)
  const positions = new Map<string, Array<string>>()
  let position = 0
  let bytes = 0
  let length = 0
  for (const [field, weight] of FIELDS) {
    for (const term of terms(saturateField(fields[field]))) {
      length++
      position = Math.min(MAX_POSITION, position + 1)
      if (Buffer.byteLength(term) > MAX_LEXEME_BYTES) continue
      let list = positions.get(term)
      if (list === undefined) {
        if (bytes > MAX_VECTOR_BYTES) continue
        list = []
        positions.set(term, list)
        bytes += term.length + 8
      }
      // A lexeme keeps at most 256 positions; later ones add nothing to the rank.
      if (list.length < 256) list.push(`${position}${weight}`)
      bytes += 4
    }
    // A gap between fields: a phrase never spans two of them, as in an FTS5 column.
    position = Math.min(MAX_POSITION, position + 1)
  }
  const parts: Array<string> = []
  for (const [term, list] of positions) parts.push(`${quote(term)}:${list.join(",")}`)
  return { vector: parts.join(" "), length }
}

/** Folded text for substring search: lower case, NFC, diacritics removed (the trigram tokenizer's `remove_diacritics 1`). */
export const fold = (text: string): string => foldDiacritics(normalize(text))

/** The texts substring search reads, folded: name, description, tags and the opening of the content. */
export const substringsOf = (doc: IndexDocument) => {
  const f = searchFields(doc)
  return { s_name: fold(f.name), s_description: fold(f.description), s_tags: fold(f.tags), s_content: fold(f.content.slice(0, TRIGRAM_CONTENT_CHARS)) }
}

/** Prefix terms (`tok:*`) only for tokens of 3+ characters, as in matchExpression.ts. */
const PREFIX_MIN = 3

const word = (token: string, prefix: boolean): string | undefined => {
  const lexeme = stem(token)
  if (lexeme === "") return undefined
  return prefix && [...token].length >= PREFIX_MIN ? `${quote(lexeme)}:*` : quote(lexeme)
}

/** One group: a word or its other spellings (OR), or a phrase (`<->`); undefined when nothing is left to match. */
export const groupQuery = (group: QueryGroup, prefix: boolean): string | undefined => {
  if (group.phrase) {
    const words = group.tokens.map((t) => word(t, false)).filter((w): w is string => w !== undefined)
    return words.length === 0 ? undefined : `(${words.join(" <-> ")})`
  }
  const words = [group.tokens[0] ?? "", ...group.alternatives.map((a) => a.token)].map((t) => word(t, prefix)).filter((w): w is string => w !== undefined)
  return words.length === 0 ? undefined : `(${words.join(" | ")})`
}

/** OR over the groups, so partial matches rank below full ones instead of vanishing. */
export const anyQuery = (groups: ReadonlyArray<string>): string => groups.join(" | ")

/** A LIKE pattern over folded text matching `segment` anywhere (`\` escapes, PostgreSQL's default). */
export const substringPattern = (segment: string): string => `%${fold(segment).replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The lexemes one group matches, for bm25 (query.ts): exact stems, stems matched as prefixes, and whether they form a phrase. */
export interface GroupLexemes {
  readonly exact: ReadonlyArray<string>
  readonly prefixes: ReadonlyArray<string>
  readonly phrase: boolean
}

export const groupLexemes = (group: QueryGroup, prefix: boolean): GroupLexemes => {
  if (group.phrase) return { exact: group.tokens.map(stem).filter((t) => t !== ""), prefixes: [], phrase: true }
  const exact: Array<string> = []
  const prefixes: Array<string> = []
  for (const token of [group.tokens[0] ?? "", ...group.alternatives.map((a) => a.token)]) {
    const lexeme = stem(token)
    if (lexeme === "") continue
    if (prefix && [...token].length >= PREFIX_MIN) prefixes.push(lexeme)
    else exact.push(lexeme)
  }
  return { exact, prefixes, phrase: false }
}

/** Weight of one occurrence by its field label, as ts_rank weighs it (RANK_WEIGHTS) scaled to bm25's 10/5/2.5/1. */
export const LABEL_WEIGHT: Readonly<Record<string, number>> = { A: 10, B: 5, C: 2.5, D: 1 }
