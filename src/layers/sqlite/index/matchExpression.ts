import type { QueryGroup } from "../../../domain/Query.js"

/**
 * FTS5 MATCH expressions. Every token and segment is quoted: raw `c++` or
 * `what's` are FTS5 syntax errors (spec 00 §4.2); a quoted run of several
 * tokens is a phrase.
 */
const quote = (text: string): string => `"${text.replaceAll('"', '""')}"`

/** Prefix retry (`tok*`) applies to tokens of 3+ characters; shorter ones would match half the index. */
const PREFIX_MIN = 3

const word = (token: string, prefix: boolean): string => (prefix && [...token].length >= PREFIX_MIN ? `${quote(token)}*` : quote(token))

/** One group: a quoted word (optionally a prefix) or its other spellings in parentheses, or a quoted phrase. */
export const groupExpression = (group: QueryGroup, prefix: boolean): string => {
  if (group.phrase) return quote(group.tokens.join(" "))
  const words = [group.tokens[0] ?? "", ...group.alternatives.map((a) => a.token)].map((t) => word(t, prefix))
  return words.length === 1 ? words[0]! : `(${words.join(" OR ")})`
}

/** OR over the groups, so partial matches rank below full ones instead of vanishing. */
export const orExpression = (expressions: ReadonlyArray<string>): string => expressions.join(" OR ")

/** A substring for the trigram table (3+ characters). */
export const substringExpression = (segment: string): string => quote(segment)

/** A LIKE pattern matching `segment` anywhere, with % and _ escaped by `\`. */
export const likePattern = (segment: string): string => `%${segment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const TRIGRAM_MIN = 3
