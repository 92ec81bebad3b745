/**
 * Query text → what the index is searched with (spec 04 §3 step 1–2). The
 * tokenizer mirrors index.db's `porter unicode61 remove_diacritics 2`, so the
 * in-memory index and the ranking features see the same terms SQLite does.
 * Pure functions, no I/O.
 */

/** Printable ASCII needs no Unicode normalisation: the common case skips it. */
const NON_ASCII = /[^ -~\t\n\r]/
const isAscii = (text: string): boolean => !NON_ASCII.test(text)

/**
 * NFC and lower case: the first thing done to every query and every indexed field.
 * The micro sign is case-folded to Greek mu as FTS5's unicode61 does ("µs" in a
 * doc must match "μs"); toLowerCase leaves it alone.
 */
export const normalize = (text: string): string => (isAscii(text) ? text.toLowerCase() : text.normalize("NFC").toLowerCase().replaceAll("\u00b5", "\u03bc"))

/** remove_diacritics 2: "café" and "cafe" are one term. */
export const foldDiacritics = (text: string): string => (isAscii(text) ? text : text.normalize("NFD").replace(/\p{M}+/gu, "").normalize("NFC"))

const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu

/**
 * unicode61's tokens: runs of letters and digits; everything else (`-`, `_`,
 * `.`, `'`, `+`, whitespace) separates. So `docker-homelab` is two tokens and
 * `c++` is one.
 */
export const tokenize = (text: string): ReadonlyArray<string> => foldDiacritics(normalize(text)).match(TOKEN) ?? []

// --- Porter stemmer, as FTS5's porter tokenizer applies it ---------------------------------
//
// FTS5 runs the original Porter (1980) algorithm on the token's UTF-8 bytes,
// leaving tokens shorter than 3 or longer than 64 bytes alone. Non-ASCII bytes
// count as consonants; a shadow string with one character per such byte
// (U+0100 + the byte, so equal bytes stay equal and none is a vowel)
// reproduces that, and only the ASCII tail the rules rewrite is mapped back.

const isVowelAt = (w: string, i: number): boolean => {
  const c = w[i]
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return true
  return c === "y" && i > 0 && !isVowelAt(w, i - 1)
}

/** m in [C](VC)^m[V] over w[0, end). */
const measure = (w: string, end: number): number => {
  let m = 0
  let i = 0
  while (i < end && !isVowelAt(w, i)) i++
  while (i < end) {
    while (i < end && isVowelAt(w, i)) i++
    if (i >= end) break
    m++
    while (i < end && !isVowelAt(w, i)) i++
  }
  return m
}

const hasVowel = (w: string, end: number): boolean => {
  for (let i = 0; i < end; i++) if (isVowelAt(w, i)) return true
  return false
}

/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (w: string, end: number): boolean =>
  end >= 3 && !isVowelAt(w, end - 1) && isVowelAt(w, end - 2) && !isVowelAt(w, end - 3) && !"wxy".includes(w[end - 1]!)

/** *d: ends with a double consonant; as in FTS5, a final "yy" counts as one. */
const endsDoubleConsonant = (w: string): boolean => w.length >= 2 && w[w.length - 1] === w[w.length - 2] && !"aeiou".includes(w[w.length - 1]!)

/** FTS5 matches a suffix only when something is left before it. */
const endsWith = (w: string, suffix: string): boolean => w.length > suffix.length && w.endsWith(suffix)

/** The longest matching suffix is replaced when the remaining stem has m > 0; a match that fails the condition ends the step. */
const replaceSuffix = (w: string, rules: ReadonlyArray<readonly [string, string]>): string => {
  const rule = rules.find(([suffix]) => endsWith(w, suffix))
  if (rule === undefined) return w
  const stemEnd = w.length - rule[0].length
  return measure(w, stemEnd) > 0 ? w.slice(0, stemEnd) + rule[1] : w
}

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["logi", "log"],
  ["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"]
]
// Longest suffix first within each shared ending, as the algorithm's table is read.
const STEP2_SORTED = [...STEP2].sort((a, b) => b[0].length - a[0].length)

const STEP3: ReadonlyArray<readonly [string, string]> = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""]
]

const STEP4 = ["ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion", "al", "er", "ic", "ou"]

const porterAscii = (word: string): string => {
  let w = word
  // Step 1a
  if (endsWith(w, "sses") || endsWith(w, "ies")) w = w.slice(0, -2)
  else if (w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1)
  // Step 1b
  let fixup = false
  if (endsWith(w, "eed")) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1)
  } else if (endsWith(w, "ed")) {
    if (hasVowel(w, w.length - 2)) {
      w = w.slice(0, -2)
      fixup = true
    }
  } else if (endsWith(w, "ing") && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3)
    fixup = true
  }
  if (fixup) {
    if (endsWith(w, "at") || endsWith(w, "bl") || endsWith(w, "iz")) w += "e"
    else if (endsDoubleConsonant(w) && !"lsz".includes(w[w.length - 1]!)) w = w.slice(0, -1)
    else if (measure(w, w.length) === 1 && endsCvc(w, w.length)) w += "e"
  }
  // Step 1c
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`
  // Steps 2–4
  w = replaceSuffix(w, STEP2_SORTED)
  w = replaceSuffix(w, STEP3)
  const step4 = STEP4.find((s) => endsWith(w, s))
  if (step4 !== undefined) {
    const end = w.length - step4.length
    const ionOk = step4 !== "ion" || (end > 0 && (w[end - 1] === "s" || w[end - 1] === "t"))
    if (measure(w, end) > 1 && ionOk) w = w.slice(0, end)
  }
  // Step 5a
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1)
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1)
  }
  // Step 5b
  if (w.length > 1 && w.endsWith("ll") && measure(w, w.length - 1) > 1) w = w.slice(0, -1)
  return w
}

const utf8Length = (codePoint: number): number => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4)

/** A character's UTF-8 bytes, each as U+0100 + byte. */
const byteShadow = (ch: string): string => {
  const cp = ch.codePointAt(0)!
  const n = utf8Length(cp)
  if (n === 1) return ch
  const bytes = n === 2
    ? [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)]
    : n === 3
      ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]
      : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]
  return String.fromCharCode(...bytes.map((b) => 0x100 + b))
}

/** Bounded: cleared past 50 000 tokens (below, in `stem`). */
const stemCache = new Map<string, string>()

/** The Porter stem of one token (from `tokenize`), as FTS5 stores it. */
export const stem = (token: string): string => {
  const cached = stemCache.get(token)
  if (cached !== undefined) return cached
  const chars = Array.from(token)
  const bytes = chars.reduce((n, ch) => n + utf8Length(ch.codePointAt(0)!), 0)
  let result = token
  if (bytes >= 3 && bytes <= 64) {
    const shadow = chars.map(byteShadow).join("")
    const stemmed = porterAscii(shadow)
    let kept = 0
    while (kept < stemmed.length && kept < shadow.length && stemmed[kept] === shadow[kept]) kept++
    // Map the kept shadow prefix back onto whole characters of the token.
    let units = 0
    let prefix = ""
    for (const ch of chars) {
      const width = ch.charCodeAt(0) < 0x80 ? 1 : utf8Length(ch.codePointAt(0)!)
      if (units + width > kept) break
      units += width
      prefix += ch
    }
    result = prefix + stemmed.slice(units)
  }
  if (stemCache.size > 50_000) stemCache.clear()
  stemCache.set(token, result)
  return result
}

/** Tokens of a text, stemmed: how the porter table sees it. */
export const terms = (text: string): ReadonlyArray<string> => tokenize(text).map(stem)

// --- stopwords ----------------------------------------------------------------------------

/**
 * Function words dropped from queries (never from the index): "deploy docker
 * compose services in my homelab" should not rank an item up for "in" and
 * "my" (curate-golden/docker-homelab-deploy). Words that carry meaning in
 * technical text stay: "down", "up", "out", "off" (nl/prod-down
 * "production goes down"), "go", "it".
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  ("a about after again against all am an and any are as at be because been before being between both but by can " +
    "could did do does doing during each few for from further had has have having he her here hers herself him himself his how " +
    "i if in into is its itself just let me more most my myself no nor not of on once only or other ought our ours ourselves " +
    "over under own same shall she should so some such than that the their theirs them themselves then there these they this those through " +
    "to too until very was we were what when where which while who whom why will with would you your yours yourself " +
    "yourselves want need please using use get make way ways")
    .split(" ")
)

/**
 * Words a spoken question frames itself with rather than naming its subject
 * ("users *still see* old css", "what should I call a *new* table"), dropped
 * from queries like STOPWORDS (never from the index; not used by curate's or
 * rules' word sets, which keep STOPWORDS alone). From the conversational part
 * of the standard English stop lists (SMART's: see, still, already, new,
 * seem, something, sure, able, try, know …), decision 0056. Motivated by the
 * tuning half's nl/naming-tables (the decoy `skills/database-migrations`
 * ranked first on "new") and nl/purge-cdn (`scripts/find-large-files.sh`
 * ranked second on "see" alone). Not the get/keep forms: nl/too-many-requests'
 * answer says "get" ("clients are getting 429 …") and a rule says what to
 * "keep" (nl/rule-env-file); both lost their answer when those were in.
 */
export const FRAMING_WORDS: ReadonlySet<string> = new Set(
  ("see still already also really actually new seem seems something anything everything thing things anymore " +
    "even now ever yet instead sure able try trying going happen happens happening know")
    .split(" ")
)

/**
 * Short forms developers type for words documents spell out, and back: a
 * query word also matches its counterpart (nl/snapshot-db "prod database"
 * finds "production database"). Only unambiguous, common pairs.
 */
const ABBREVIATIONS: ReadonlyArray<readonly [string, string]> = [
  ["prod", "production"], ["db", "database"], ["repo", "repository"], ["k8s", "kubernetes"], ["config", "configuration"],
  ["env", "environment"], ["auth", "authentication"], ["deps", "dependencies"], ["docs", "documentation"], ["perf", "performance"],
  ["app", "application"], ["infra", "infrastructure"], ["dev", "development"], ["js", "javascript"], ["ts", "typescript"],
  ["pkg", "package"], ["dir", "directory"], ["img", "image"], ["msg", "message"], ["tmp", "temporary"]
]
const COUNTERPART = new Map(ABBREVIATIONS.flatMap(([short, long]) => [[short, long], [long, short]] as const))

/** Built once, bounded by ABBREVIATIONS. Every spelling's stem → its counterpart; the first pair with a stem wins, as a scan of COUNTERPART in order would find it. */
let counterpartByStem: ReadonlyMap<string, string> | undefined
const byStem = (): ReadonlyMap<string, string> => {
  if (counterpartByStem !== undefined) return counterpartByStem
  const map = new Map<string, string>()
  for (const [word, other] of COUNTERPART) if (!map.has(stem(word))) map.set(stem(word), other)
  counterpartByStem = map
  return map
}

/** The other spelling of a word, compared by stem ("repositories" → "repo"). */
const counterpartOf = (token: string): string | undefined => COUNTERPART.get(token) ?? byStem().get(stem(token))

// --- parsing ------------------------------------------------------------------------------

/** One unit of the OR query: a word (or its other spelling), or a quoted phrase that must match as a phrase. */
export interface QueryGroup {
  /** Index tokens (normalised, diacritics folded). */
  readonly tokens: ReadonlyArray<string>
  /** Their porter stems, for ranking features. */
  readonly stems: ReadonlyArray<string>
  readonly phrase: boolean
  /** A word's other spellings (`prod` ↔ `production`): matching one counts as matching the word. */
  readonly alternatives: ReadonlyArray<{ readonly token: string; readonly stem: string }>
}

export type ParsedQuery =
  /** The empty query lists everything (sorted by ref). */
  | { readonly _tag: "All" }
  /** `prefix/` lists concept ids under a prefix; `bundle//` (or `bundle//prefix/`) a bundle. */
  | { readonly _tag: "Browse"; readonly bundle?: string; readonly prefix: string }
  /** Ranked lexical search. `allStems` keeps stopwords, for exact-name comparison. */
  | { readonly _tag: "Words"; readonly groups: ReadonlyArray<QueryGroup>; readonly allStems: ReadonlyArray<string> }
  /** Scripts written without spaces (CJK, Thai…): substring search over the trigram table. */
  | { readonly _tag: "Substring"; readonly segments: ReadonlyArray<string> }

/** Scripts that do not separate words by spaces: unicode61 would make one token of a whole run. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u

const group = (tokens: ReadonlyArray<string>, phrase: boolean): QueryGroup => {
  const other = tokens.length === 1 ? counterpartOf(tokens[0]!) : undefined
  return {
    tokens,
    stems: tokens.map(stem),
    phrase: phrase && tokens.length > 1,
    alternatives: other === undefined ? [] : tokenize(other).map((token) => ({ token, stem: stem(token) }))
  }
}

/**
 * Normalises and splits a query (spec 04 §3 steps 1–2): browse forms, quoted
 * phrases, stopwords dropped unless the query is nothing but stopwords,
 * repeated words counted once.
 */
export const parseQuery = (raw: string): ParsedQuery => {
  const text = raw.normalize("NFC").trim()
  if (text === "") return { _tag: "All" }
  if (text.endsWith("/") && !/\s/.test(text)) {
    const split = text.indexOf("//")
    if (split > 0) return { _tag: "Browse", bundle: text.slice(0, split), prefix: text.slice(split + 2) }
    if (split === -1) return { _tag: "Browse", prefix: text }
  }
  if (UNSPACED.test(text)) {
    const segments = [...new Set(normalize(text).split(/[\s\p{P}\p{S}]+/u).filter((s) => s !== ""))]
    return segments.length === 0 ? { _tag: "Words", groups: [], allStems: [] } : { _tag: "Substring", segments }
  }

  const phrases: Array<ReadonlyArray<string>> = []
  const words: Array<string> = []
  const quoted = /"([^"]*)"/g
  let rest = text
  if ((text.match(/"/g) ?? []).length >= 2) {
    for (const match of text.matchAll(quoted)) {
      const tokens = tokenize(match[1]!)
      if (tokens.length > 1) phrases.push(tokens)
      else words.push(...tokens)
    }
    rest = text.replace(quoted, " ")
  }
  words.push(...tokenize(rest))
  const allStems = [...phrases.flat(), ...words].map(stem)
  const content = words.filter((w) => !STOPWORDS.has(w) && !FRAMING_WORDS.has(w))
  const kept = content.length > 0 || phrases.length > 0 ? content : words

  const seen = new Set<string>()
  const groups: Array<QueryGroup> = []
  for (const tokens of phrases) {
    const key = tokens.map(stem).join(" ")
    if (!seen.has(key)) {
      seen.add(key)
      groups.push(group(tokens, true))
    }
  }
  for (const word of kept) {
    const key = stem(word)
    if (!seen.has(key)) {
      seen.add(key)
      groups.push(group([word], false))
    }
  }
  return { _tag: "Words", groups, allStems }
}
