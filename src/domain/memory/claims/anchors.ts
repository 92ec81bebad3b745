import { stemmer } from "stemmer"
import {
  MONTHS,
  MULTIPLIERS,
  NEGATED_WORDS,
  NEGATIONS,
  NUMBER_WORDS,
  NUMERIC_QUALIFIERS,
  QUALIFIER_PHRASES,
  QUALIFIERS,
  STOP_WORDS,
  FREQUENCIES,
  IRREGULAR_VERBS,
  POLAR_WORDS,
  UNITS,
  WEEKDAYS
} from "./vocabulary.js"

/**
 * What one claim says, in the parts coverage compares exactly (spec 06 §8.4,
 * R-MEM-4): numbers with their units, dates, negations, qualifiers and named
 * entities, plus its stemmed content words.
 */
export interface ClaimAnchors {
  /** "12 min", "100 /s", "1536 MiB", "2.1.4", "06:30 time": value, then unit when it has one. */
  readonly numbers: ReadonlyArray<string>
  /** ISO dates (YYYY-MM-DD, or YYYY-MM for "March 2026"). */
  readonly dates: ReadonlyArray<string>
  /** Negations, "not" or "without", with the word they bear on: "not rerun". */
  readonly negations: ReadonlyArray<string>
  /** Qualifiers by kind ("usually", "atmost", "only", "about", …) with the word they bear on. */
  readonly qualifiers: ReadonlyArray<string>
  /** Names, lowercased: capitalised words inside a sentence, identifiers, paths, hosts, code spans. */
  readonly entities: ReadonlyArray<string>
}

/** A qualifier or negation and the word (stem, number value or entity) it bears on. */
export interface Mark {
  readonly kind: string
  readonly on: string
  readonly negation: boolean
  /** Whether every mention of `on` in its claim bears this mark ("no deploy freeze"), not just one of several. */
  readonly every?: boolean
}

export interface NumberAnchor {
  readonly value: string
  readonly unit: string
}

/** The analysis of one claim's text. */
export interface ClaimAnalysis {
  readonly numbers: ReadonlyArray<NumberAnchor>
  readonly dates: ReadonlyArray<string>
  readonly marks: ReadonlyArray<Mark>
  readonly entities: ReadonlyArray<string>
  /** Stemmed content words the claim must share with what covers it. */
  readonly words: ReadonlyArray<string>
  /** A capitalised word opening the sentence: a name or an ordinary word, so it is required as a word. */
  readonly lead?: string
  /** That word as written, lowercased: how a mark elsewhere names it ("not Alice"). */
  readonly leadName?: string
  /** Every word stem, entities included: what a target offers when it covers another claim. */
  readonly offered: ReadonlyArray<string>
  /** The text lowercased with markdown and code ticks removed, for entity look-ups. */
  readonly plain: string
  /** How often each word stem, number value, name and date occurs: a negation bears on one mention, not all. */
  readonly mentions: ReadonlyMap<string, number>
}

export const anchorsOf = (analysis: ClaimAnalysis): ClaimAnchors => ({
  numbers: analysis.numbers.map(numberKey),
  dates: analysis.dates,
  negations: analysis.marks.filter((mark) => mark.negation).map((mark) => `${mark.kind} ${mark.on}`.trim()),
  qualifiers: analysis.marks.filter((mark) => !mark.negation).map((mark) => `${mark.kind} ${mark.on}`.trim()),
  entities: analysis.entities
})

/** The stems of words whose opposite is one word away (vocabulary.ts POLAR_WORDS). */
export const isPolar = (wordStem: string): boolean => {
  polarStems ??= new Set([...POLAR_WORDS].map(stem))
  return polarStems.has(wordStem)
}
let polarStems: Set<string> | undefined

export const numberKey = (anchor: NumberAnchor): string => (anchor.unit === "" ? anchor.value : `${anchor.value} ${anchor.unit}`)

// --- pre-pass: the text a claim is read from ---------------------------------------------

const MONTH = `(${MONTHS.map((month) => (month === "may" ? "may" : `${month.slice(0, 3)}(?:${month.slice(3)}|${month === "september" ? "t" : ""})?`)).join("|")})`
const DAY_MONTH_YEAR = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH}\\.?,?\\s+(\\d{4})\\b`, "gi")
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, "gi")
const MONTH_YEAR = new RegExp(`\\b${MONTH}\\.?,?\\s+(\\d{4})\\b`, "gi")

const monthNumber = (name: string): string => {
  const index = MONTHS.findIndex((month) => month.startsWith(name.toLowerCase().slice(0, 3)))
  return String(index + 1).padStart(2, "0")
}

const iso = (year: string, month: string, day?: string): string => (day === undefined ? `${year}-${month}` : `${year}-${month}-${day.padStart(2, "0")}`)

/** Written dates → ISO, so "March 2, 2026", "2 Mar 2026" and "2026-03-02" are one date. */
export const normaliseDates = (text: string): string =>
  text
    .replace(/\b(\d{4})\/(\d{2})\/(\d{2})\b/g, "$1-$2-$3")
    .replace(DAY_MONTH_YEAR, (_, day: string, month: string, year: string) => iso(year, monthNumber(month), day))
    .replace(MONTH_DAY_YEAR, (_, month: string, day: string, year: string) => iso(year, monthNumber(month), day))
    .replace(MONTH_YEAR, (_, month: string, year: string) => iso(year, monthNumber(month)))

const CODE = /`([^`]+)`/g
const PLACEHOLDER = /^\u27e6(\d+)\u27e7$/

/** Emphasis and quote markers go; `_`/`*` inside a word (snake_case, *.json) stay. */
const stripMarkdown = (text: string): string =>
  text
    .replace(/\*\*|__|~~/g, "")
    .replace(/(^|[\s(])[*_]+(?=\S)/g, "$1")
    .replace(/(?<=[^\s/])[*_]+(?=$|[\s),.;:!?])/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")

const expandContractions = (text: string): string =>
  text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\bcan't\b/gi, "can not")
    .replace(/\bwon't\b/gi, "will not")
    .replace(/\bcannot\b/gi, "can not")
    .replace(/\b(\w+)n't\b/gi, "$1 not")
    .replace(/\b(it|that|there|what|here)'s\b/gi, "$1 is")
    .replace(/\b(\w+)'s\b/g, "$1")

/** The text lowercased with markdown and code ticks removed: what entity look-ups search. */
export const plainText = (text: string): string =>
  expandContractions(stripMarkdown(normaliseDates(text)))
    .replace(/`/g, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()

// --- tokens -------------------------------------------------------------------------------

type Token = { readonly text: string } | { readonly brk: true }

const LEADING = /^[(["'\u201c<]+/
const TRAILING = /[.,;:!?)\]"'\u201d>]+$/

const tokenise = (text: string): ReadonlyArray<Token> => {
  const tokens: Array<Token> = []
  for (const raw of text.split(/\s+|\u2014|\u2013|\s-\s/)) {
    if (raw === "") continue
    const lead = LEADING.exec(raw)?.[0] ?? ""
    let core = raw.slice(lead.length)
    // keep a trailing "/" of a folder; a trailing full stop of a sentence goes
    const trail = TRAILING.exec(core)?.[0] ?? ""
    core = core.slice(0, core.length - trail.length)
    if (lead.includes("(")) tokens.push({ brk: true })
    if (/[\p{L}\p{N}%#@/$~\u27e6]/u.test(core)) tokens.push({ text: core })
    else if (core !== "") tokens.push({ brk: true })
    if (/[,;:.!?)]/.test(trail)) tokens.push({ brk: true })
  }
  return tokens
}

const NUMBER = /^([~\u2248])?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?([a-z%\u00b5]+)?$/i
const VERSION = /^v?\d+(?:\.\d+){2,}$/i
const NUMBER_WORD_UNIT = /^(\d+(?:\.\d+)?)-([a-z]+)$/i
const TIME = /^(\d{1,2}):(\d{2})(?::\d{2})?$/
const ISO_DATE = /^\d{4}-\d{2}(?:-\d{2})?$/

/** Thousands separators go; a fraction stays as written ("3.10" is not "3.1": versions look like decimals). */
const canonicalNumber = (digits: string, fraction: string | undefined, multiplier = 1): string => {
  const written = digits.replace(/,/g, "").replace(/^0+(?=\d)/, "") + (fraction ?? "")
  return multiplier === 1 ? written : String(Math.round(Number(written) * multiplier * 1e6) / 1e6)
}

const unitOf = (word: string): string | undefined => UNITS.get(word.toLowerCase())

const stems = new Map<string, string>()

/** Porter stems, with the irregular verb forms developer notes use most folded onto their base. */
const stem = (word: string): string => {
  const lower = word.toLowerCase()
  let stemmed = stems.get(lower)
  if (stemmed === undefined) {
    stemmed = stemmer(IRREGULAR_VERBS.get(lower) ?? lower)
    if (stems.size > 50_000) stems.clear()
    stems.set(lower, stemmed)
  }
  return stemmed
}

/** Identifiers, paths, hosts, flags, versions with letters, acronyms and CamelCase: names however they are cased. */
const isEntityToken = (token: string): boolean =>
  /^(--?|#|@|\/|~\/|\$)\w/.test(token) ||
  /\w[/_=:@*.+]\S|\w\/$/.test(token) ||
  (/\p{L}/u.test(token) && /\d/.test(token)) ||
  /^\p{L}+(?:-\p{L}+)+$/u.test(token) ||
  /\p{Ll}\p{Lu}/u.test(token) ||
  /^\p{Lu}{2,}$/u.test(token)

const isWord = (lower: string): boolean => NEGATIONS.has(lower) || QUALIFIERS.has(lower) || NUMERIC_QUALIFIERS.has(lower) || STOP_WORDS.has(lower)

type Item =
  | { readonly type: "word"; readonly key: string }
  | { readonly type: "number"; readonly key: string }
  | { readonly type: "entity"; readonly key: string }
  | { readonly type: "date"; readonly key: string }
  | { readonly type: "mark"; readonly kind: string; readonly negation: boolean }
  | { readonly type: "break" }

const textOf = (token: Token | undefined): string | undefined => (token !== undefined && "text" in token ? token.text : undefined)

/** Reads one claim's text into its anchors and content words. */
export const analyseClaim = (text: string): ClaimAnalysis => {
  const codes: Array<string> = []
  const withoutCode = normaliseDates(text).replace(CODE, (_, code: string) => {
    codes.push(code.trim().toLowerCase().replace(/\s+/g, " "))
    return ` \u27e6${codes.length - 1}\u27e7 `
  })
  const tokens = tokenise(expandContractions(stripMarkdown(withoutCode)))
  const items: Array<Item> = []
  const numbers: Array<NumberAnchor> = []
  const dates: Array<string> = []
  const entities: Array<string> = []
  const words: Array<string> = []
  const offered: Array<string> = []
  let lead: string | undefined
  let leadName: string | undefined
  let sawWord = false
  /** "msg/s" after a number: a word and a rate unit, not a name. */
  const rates = new Set<number>()

  /** The unit after a number at `i` (a unit word, then "per X" or "x/unit"); returns tokens consumed. */
  const unitAfter = (i: number): { unit: string; used: number; multiplier: number } => {
    let used = 0
    let multiplier = 1
    let unit = ""
    const next = textOf(tokens[i + 1])?.toLowerCase()
    if (next !== undefined && MULTIPLIERS.has(next)) {
      multiplier = MULTIPLIERS.get(next)!
      used++
    }
    const after = textOf(tokens[i + 1 + used])?.toLowerCase()
    if (after !== undefined && unitOf(after) !== undefined) {
      unit = unitOf(after)!
      used++
    }
    // a rate: "100 requests per second", "120 msg/s"
    for (let k = i + 1 + used; k <= i + 3 + used && k < tokens.length; k++) {
      const word = textOf(tokens[k])?.toLowerCase()
      if (word === undefined) break
      if (word === "per" || word === "a" || word === "an") {
        const per = textOf(tokens[k + 1])?.toLowerCase()
        if (per !== undefined && (word === "per" || unitOf(per) !== undefined)) {
          unit = `${unit}/${unitOf(per) ?? stem(per)}`
          break
        }
      }
      const slash = /^\p{L}+\/(\p{L}+)$/u.exec(word)
      if (slash !== null && unitOf(slash[1]!) !== undefined) {
        unit = `${unit}/${unitOf(slash[1]!)}`
        rates.add(k)
        break
      }
    }
    return { unit, used, multiplier }
  }

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (!("text" in token)) {
      items.push({ type: "break" })
      continue
    }
    const raw = token.text
    const lower = raw.toLowerCase()
    const atStart = !sawWord
    sawWord = true
    if (rates.has(i)) {
      const noun = stem(lower.split("/")[0]!)
      words.push(noun)
      offered.push(noun)
      items.push({ type: "word", key: noun })
      continue
    }
    const code = PLACEHOLDER.exec(raw)
    if (code !== null) {
      const span = codes[Number(code[1])]!
      entities.push(span)
      items.push({ type: "entity", key: span })
      for (const part of span.match(/\p{L}+/gu) ?? []) offered.push(stem(part))
      // a version or a port in code is still a number: "`4.8.0`" states 4.8.0
      const inner = analyseClaim(span)
      numbers.push(...inner.numbers)
      dates.push(...inner.dates)
      continue
    }
    if (ISO_DATE.test(raw)) {
      dates.push(raw)
      items.push({ type: "date", key: raw })
      continue
    }
    const time = TIME.exec(raw)
    if (time !== null) {
      const value = `${time[1]!.padStart(2, "0")}:${time[2]}`
      numbers.push({ value, unit: "time" })
      items.push({ type: "number", key: value })
      continue
    }
    if (VERSION.test(raw)) {
      const value = lower.replace(/^v/, "")
      numbers.push({ value, unit: "" })
      items.push({ type: "number", key: value })
      continue
    }
    const numberWordUnit = NUMBER_WORD_UNIT.exec(raw)
    if (numberWordUnit !== null) {
      const value = canonicalNumber(numberWordUnit[1]!, undefined)
      const suffix = numberWordUnit[2]!.toLowerCase()
      numbers.push({ value, unit: unitOf(suffix) ?? stem(suffix) })
      items.push({ type: "number", key: value })
      continue
    }
    const number = NUMBER.exec(raw)
    const numberWord = NUMBER_WORDS.get(lower)
    if ((number !== null && (number[4] === undefined || unitOf(number[4]) !== undefined)) || numberWord !== undefined) {
      if (number?.[1] !== undefined) items.push({ type: "mark", kind: "about", negation: false })
      const glued = number?.[4] === undefined ? undefined : unitOf(number[4])
      const after = unitAfter(i)
      const value = number !== null ? canonicalNumber(number[2]!, number[3], after.multiplier) : numberWord!
      const unit = glued !== undefined ? `${glued}${after.unit.startsWith("/") ? after.unit : ""}` : after.unit
      numbers.push({ value, unit })
      items.push({ type: "number", key: value })
      i += after.used
      continue
    }
    const phrase = QUALIFIER_PHRASES.find(([parts]) => parts.every((part, k) => textOf(tokens[i + k])?.toLowerCase() === part))
    if (phrase !== undefined) {
      items.push({ type: "mark", kind: phrase[1], negation: false })
      i += phrase[0].length - 1
      continue
    }
    if (NEGATIONS.has(lower)) {
      items.push({ type: "mark", kind: NEGATIONS.get(lower)!, negation: true })
      continue
    }
    if (NEGATED_WORDS.has(lower)) {
      const positive = stem(NEGATED_WORDS.get(lower)!)
      items.push({ type: "mark", kind: "not", negation: true })
      items.push({ type: "word", key: positive })
      words.push(positive)
      offered.push(positive)
      continue
    }
    if (QUALIFIERS.has(lower) && !(lower === "may" && /^\p{Lu}/u.test(raw) && !atStart)) {
      items.push({ type: "mark", kind: QUALIFIERS.get(lower)!, negation: false })
      continue
    }
    if (NUMERIC_QUALIFIERS.has(lower)) {
      const next = textOf(tokens[i + 1])
      const nextLower = next?.toLowerCase() ?? ""
      if (next !== undefined && (NUMBER.test(next) || NUMBER_WORDS.has(nextLower) || NUMBER_WORD_UNIT.test(next) || TIME.test(next))) {
        items.push({ type: "mark", kind: NUMERIC_QUALIFIERS.get(lower)!, negation: false })
        continue
      }
    }
    if (FREQUENCIES.has(lower)) {
      entities.push(lower)
      items.push({ type: "entity", key: lower })
      offered.push(stem(lower))
      continue
    }
    if (WEEKDAYS.has(lower.replace(/s$/, ""))) {
      const day = lower.replace(/s$/, "")
      entities.push(day)
      items.push({ type: "entity", key: day })
      offered.push(stem(day))
      continue
    }
    if (isEntityToken(raw) && !isWord(lower)) {
      entities.push(lower)
      items.push({ type: "entity", key: lower })
      for (const part of lower.match(/\p{L}+/gu) ?? []) offered.push(stem(part))
      continue
    }
    if (!/\p{L}/u.test(raw)) continue
    if (STOP_WORDS.has(lower)) continue
    const wordStem = stem(lower.replace(/[^\p{L}\p{N}]/gu, ""))
    offered.push(wordStem)
    if (/^\p{Lu}/u.test(raw)) {
      if (atStart) {
        if (lead === undefined) {
          lead = wordStem
          leadName = lower
        }
        words.push(wordStem)
        items.push({ type: "word", key: wordStem })
      } else {
        entities.push(lower)
        items.push({ type: "entity", key: lower })
      }
      continue
    }
    words.push(wordStem)
    items.push({ type: "word", key: wordStem })
  }

  const mentions = new Map<string, number>()
  for (const item of items) if ("key" in item) mentions.set(item.key, (mentions.get(item.key) ?? 0) + 1)
  const attached = attachMarks(items)
  const marks = attached.map((mark) => ({
    ...mark,
    every: attached.filter((m) => m.kind === mark.kind && m.on === mark.on).length >= (mentions.get(mark.on) ?? 0)
  }))
  return {
    mentions,
    numbers,
    dates,
    marks,
    entities: [...new Set(entities)],
    words: [...new Set(words)],
    ...(lead === undefined ? {} : { lead }),
    ...(leadName === undefined ? {} : { leadName }),
    offered: [...new Set(offered)],
    plain: plainText(text)
  }
}

/**
 * Each negation or qualifier bears on the next word, number or name in its
 * clause ("not shared"); at a clause's end ("on macOS only") on the one before.
 */
const attachMarks = (items: ReadonlyArray<Item>): ReadonlyArray<Mark> => {
  const marks: Array<Mark> = []
  const keyAt = (k: number): string | undefined => {
    const item = items[k]!
    return item.type === "word" || item.type === "number" || item.type === "entity" || item.type === "date" ? item.key : undefined
  }
  items.forEach((item, i) => {
    if (item.type !== "mark") return
    let on: string | undefined
    for (let k = i + 1; k < items.length && items[k]!.type !== "break" && on === undefined; k++) on = keyAt(k)
    for (let k = i - 1; k >= 0 && items[k]!.type !== "break" && on === undefined; k--) on = keyAt(k)
    marks.push({ kind: item.kind, on: on ?? "", negation: item.negation })
  })
  return marks
}
