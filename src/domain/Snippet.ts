import { normalize, stem, tokenize, type ParsedQuery } from "./Query.js"

/**
 * The snippet of a search hit (issue 15 item 6): the stretch of an item's
 * description or text where the query's terms are, plain, whitespace
 * collapsed, at most SNIPPET_CHARS characters — what ripgrep's or qmd's
 * matching line is to a file. Terms are found again by their porter stems (a
 * word the index matched by stem, or by prefix on the retry, is found here),
 * so the text views can mark them. Pure functions, no I/O.
 */

export const SNIPPET_CHARS = 200

/** Context kept before the first term of the chosen stretch. */
const LEAD = 40

/** Past this many found words a text is not searched further: a snippet needs few. */
const MAX_FOUND = 2_000

/** How the terms of one query are found in a text. */
export interface SnippetTerms {
  /**
   * Finds candidate substrings, or the first characters of candidate words
   * (findTerms extends each to the end of its word), in lower-cased text
   * (`caseless`: in text as it is, for the rare text whose lower case has
   * another length); undefined when the query has no terms (browse, list
   * everything).
   */
  readonly pattern: RegExp | undefined
  readonly caseless: RegExp | undefined
  /** Whether a candidate must start a word (words do, substrings need not). */
  readonly wordStart: boolean
  /** The term (query group or segment) a candidate is, or -1 when it is none. */
  readonly termOf: (found: string) => number
}

/** One occurrence of a term: [start, end) in the text. */
export interface TermAt {
  readonly start: number
  readonly end: number
  readonly term: number
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A token character as unicode61 reads them (domain/Query.ts). */
const WORD = "[\\p{L}\\p{N}\\p{Co}]"
const ENDS_IN_WORD = new RegExp(`${WORD}$`, "u")
/** The rest of a word from where a candidate's first characters end (sticky: read at lastIndex). */
const WORD_REST = new RegExp(`${WORD}*`, "uy")

/** Prefix matches (the index's `tok*` retry) count for tokens of 3+ characters, as there. */
const PREFIX_MIN = 3

/** Distinct words one query's termOf remembers. */
const MAX_SEEN = 4_096

const NO_TERMS: SnippetTerms = { pattern: undefined, caseless: undefined, wordStart: false, termOf: () => -1 }

// A literal alternation without a lookbehind or the `i` flag lets the engine skip ahead: several times faster.
// No property classes in it either: each new query's pattern is compiled, and `\p{L}` costs a millisecond or more
// to compile where a literal alternation costs tens of microseconds (docs/decisions/0040-search-latency.md).
const patterns = (source: string) => ({ pattern: new RegExp(source, "gu"), caseless: new RegExp(source, "giu") })

export const snippetTerms = (query: ParsedQuery): SnippetTerms => {
  if (query._tag === "Substring") {
    if (query.segments.length === 0) return NO_TERMS
    const segments = query.segments
    return { ...patterns(segments.map(escapeRegExp).join("|")), wordStart: false, termOf: (found) => segments.indexOf(normalize(found)) }
  }
  if (query._tag !== "Words" || query.groups.length === 0) return NO_TERMS
  const byStem = new Map<string, number>()
  const prefixes: Array<readonly [string, number]> = []
  query.groups.forEach((group, i) => {
    for (const s of [...group.stems, ...group.alternatives.map((a) => a.stem)]) if (!byStem.has(s)) byStem.set(s, i)
    for (const token of [...group.tokens, ...group.alternatives.map((a) => a.token)]) prefixes.push([token, i])
  })
  // Candidates share the first characters of a query token; the stem decides.
  const starts = [...new Set(prefixes.map(([token]) => escapeRegExp([...token].slice(0, PREFIX_MIN).join(""))))]
  const termOf = (found: string): number => {
    const tokens = tokenize(found)
    if (tokens.length !== 1) return -1
    const token = tokens[0]!
    const byItsStem = byStem.get(stem(token))
    if (byItsStem !== undefined) return byItsStem
    return prefixes.find(([prefix]) => [...prefix].length >= PREFIX_MIN && token.startsWith(prefix))?.[1] ?? -1
  }
  // The same words recur in a text and across a search's hits: each is tokenised and stemmed once per query.
  const seen = new Map<string, number>()
  return {
    ...patterns(`(?:${starts.join("|")})`),
    wordStart: true,
    termOf: (found) => {
      let term = seen.get(found)
      if (term === undefined) {
        if (seen.size >= MAX_SEEN) seen.clear()
        term = termOf(found)
        seen.set(found, term)
      }
      return term
    }
  }
}

/** Where the terms occur in a text, in order. */
export const findTerms = (text: string, terms: SnippetTerms): ReadonlyArray<TermAt> => {
  if (terms.pattern === undefined || terms.caseless === undefined || text === "") return []
  const lower = text.toLowerCase()
  const [haystack, pattern] = lower.length === text.length ? [lower, terms.pattern] : [text, terms.caseless]
  const found: Array<TermAt> = []
  // One pattern object per query, shared by its hits: read from the start each time (this runs synchronously).
  pattern.lastIndex = 0
  for (let match = pattern.exec(haystack); match !== null; match = pattern.exec(haystack)) {
    const start = match.index
    let end = start + match[0].length
    // A word's first characters matched: the candidate runs to the end of the word, and the next search after it.
    if (terms.wordStart) {
      WORD_REST.lastIndex = end
      WORD_REST.exec(haystack)
      end = WORD_REST.lastIndex
    }
    pattern.lastIndex = end > start ? end : start + (haystack.codePointAt(start)! > 0xffff ? 2 : 1)
    if (end === start) continue
    // Inside a word is not the start of one (`undocked` is not `dock…`).
    if (terms.wordStart && start > 0 && ENDS_IN_WORD.test(text.slice(Math.max(0, start - 2), start))) continue
    const term = terms.termOf(text.slice(start, end))
    if (term >= 0) found.push({ start, end, term })
    if (found.length >= MAX_FOUND) break
  }
  return found
}

/** The stretch holding the most distinct terms (the earliest of equals): its first occurrence's index and how many. */
const bestStretch = (found: ReadonlyArray<TermAt>): { readonly first: number; readonly distinct: number } => {
  const counts = new Map<number, number>()
  let best = { first: 0, distinct: 0 }
  let low = 0
  for (let high = 0; high < found.length; high++) {
    counts.set(found[high]!.term, (counts.get(found[high]!.term) ?? 0) + 1)
    while (found[high]!.end - found[low]!.start > SNIPPET_CHARS - LEAD) {
      const term = found[low]!.term
      const left = counts.get(term)! - 1
      if (left === 0) counts.delete(term)
      else counts.set(term, left)
      low++
    }
    if (counts.size > best.distinct) best = { first: low, distinct: counts.size }
  }
  return best
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

/**
 * At most `chars` characters of `text` around `from`, cut at spaces where it
 * can be, with … where cut (`before`/`after`: `text` is itself part of a longer one).
 */
const excerpt = (text: string, from: number, chars: number, before: boolean, after: boolean): string => {
  if (text.length + (before ? 1 : 0) + (after ? 1 : 0) <= chars) return `${before ? "…" : ""}${text}${after ? "…" : ""}`
  let start = Math.max(0, from - LEAD)
  if (start > 0) {
    const space = text.indexOf(" ", start)
    start = space >= 0 && space < from ? space + 1 : start
    if (isLowSurrogate(text.charCodeAt(start))) start++
  }
  const lead = start > 0 || before
  const room = chars - (lead ? 1 : 0)
  if (text.length - start <= room - (after ? 1 : 0)) return `${lead ? "…" : ""}${text.slice(start)}${after ? "…" : ""}`
  // Room for the ellipsis at the end too.
  let end = start + room - 1
  const space = text.lastIndexOf(" ", end)
  if (space > start && space > from) end = space
  if (isHighSurrogate(text.charCodeAt(end - 1))) end--
  return `${lead ? "…" : ""}${text.slice(start, end).trimEnd()}…`
}

/**
 * Raw text read around a stretch: enough to fill a snippet once whitespace
 * is collapsed (indented code can be mostly blanks), without collapsing a
 * whole page.
 */
const RAW_BEFORE = 200
const RAW_AFTER = 1_200

const NON_BLANK = /\S/

/** Whitespace, newlines included, as single spaces (a lone space is left as it is: most are, and replacing them is most of the cost). */
export const collapseWhitespace = (text: string): string => text.replace(/\s{2,}|[\t\n\r\f\v]/g, " ").trim()

/** An item's text without an opening line (a heading, with or without its #) that repeats its title: the hit's line shows the title already. */
export const withoutTitleHeading = (text: string, title: string): string => {
  const heading = /^\s*(?:#{1,6}[ \t]+)?([^\n]*?)[ \t#]*(?:\n|$)/.exec(text)
  return heading !== null && collapseWhitespace(heading[1]!).toLowerCase() === collapseWhitespace(title).toLowerCase() ? text.slice(heading[0].length) : text
}

/**
 * The snippet from the first of `sources` (description, then text) whose
 * stretch holds the most distinct terms; with no term anywhere, the opening
 * of the first source that has text; "" for an item without any.
 */
export const makeSnippet = (terms: SnippetTerms, sources: ReadonlyArray<string | undefined>, chars = SNIPPET_CHARS): string => {
  let best: { readonly text: string; readonly from: number; readonly distinct: number } | undefined
  for (const text of sources) {
    if (text === undefined || !NON_BLANK.test(text)) continue
    const found = findTerms(text, terms)
    const stretch = bestStretch(found)
    if (best === undefined || stretch.distinct > best.distinct) best = { text, from: found[stretch.first]?.start ?? 0, distinct: stretch.distinct }
  }
  if (best === undefined) return ""
  // Collapse only the raw text around the stretch; say where more text was left out.
  const { text, from } = best
  const low = Math.max(0, from - RAW_BEFORE)
  const high = Math.min(text.length, from + RAW_AFTER)
  const head = collapseWhitespace(text.slice(low, from))
  const tail = collapseWhitespace(text.slice(from, high))
  const joined = head === "" ? tail : tail === "" ? head : `${head}${/\s$/.test(text.slice(low, from)) ? " " : ""}${tail}`
  const at = head === "" ? 0 : joined.length - tail.length
  return excerpt(joined, at, chars, low > 0 && NON_BLANK.test(text.slice(0, low)), high < text.length && NON_BLANK.test(text.slice(high)))
}

/** `text` with the terms' occurrences passed through `mark` (a view's bold, markdown's **…**) and the rest through `plain`. */
export const markTerms = (text: string, terms: SnippetTerms, mark: (term: string) => string, plain: (text: string) => string = (t) => t): string => {
  let out = ""
  let at = 0
  for (const found of findTerms(text, terms)) {
    out += plain(text.slice(at, found.start)) + mark(text.slice(found.start, found.end))
    at = found.end
  }
  return out + plain(text.slice(at))
}
