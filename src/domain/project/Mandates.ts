import { stem, STOPWORDS, tokenize } from "../Query.js"
import { ruleSections, type RuleFile } from "./RuleFile.js"

/**
 * A rule's mandates as compared by the conflict checker (spec 08 R-HAR-3):
 * the structured `mandates` of its frontmatter, else the numbered lines under
 * its "Mandatory rules" heading with the polarity their words state.
 */
export interface Mandate {
  /** true: the rule requires the subject; false: it forbids it. */
  readonly must: boolean
  readonly subject: string
  readonly structured: boolean
  /** Stemmed content words of the subject (stopwords and polarity words removed). */
  readonly words: ReadonlySet<string>
  /** 1-based line in the rule file (the frontmatter key's line for structured ones). */
  readonly line: number
}

const NEGATIVE = /\b(must not|mustn't|never|do not|don't|may not|shall not|should not|forbidden|prohibited|not allowed)\b/i

/** Words that state polarity or obligation, not a subject. */
const POLARITY_WORDS = new Set(["must", "never", "always", "do", "don", "t", "not", "may", "shall", "should", "forbidden", "prohibited", "allowed", "required", "ensure", "mustn"])

export const contentWords = (text: string): ReadonlySet<string> =>
  new Set(tokenize(text.toLowerCase()).filter((w) => w.length > 1 && !STOPWORDS.has(w) && !POLARITY_WORDS.has(w) && !/^\d+$/.test(w)).map(stem))

/** Lowercased, punctuation dropped, spaces collapsed: "Retry idempotent writes." = "retry  idempotent writes". */
export const normaliseSubject = (subject: string): string => subject.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, " ").replace(/\s+/g, " ").trim()

export const isNegative = (line: string): boolean => NEGATIVE.test(line)

/** A rule's mandates: structured when the frontmatter has them, else prose. */
export const mandatesOf = (rule: RuleFile): ReadonlyArray<Mandate> => {
  if (rule.mandates !== undefined && rule.mandates.length > 0) {
    const line = rule.keyLines["mandates"] ?? 1
    return rule.mandates.map((m) => ({ must: m.must, subject: m.subject, structured: true, words: contentWords(m.subject), line }))
  }
  const section = ruleSections(rule.body).find((s) => /^mandatory rules?$/i.test(s.heading))
  if (section === undefined) return []
  const out: Array<Mandate> = []
  const lines = rule.body.split("\n")
  for (let i = section.line; i < lines.length; i++) {
    const line = lines[i]!
    if (/^##[ \t]/.test(line)) break
    const numbered = /^\s*\d+[.)][ \t]+(.+)$/.exec(line)
    if (numbered === null) continue
    const text = numbered[1]!.trim()
    out.push({ must: !isNegative(text), subject: text, structured: false, words: contentWords(text), line: rule.bodyLine + i })
  }
  return out
}

/** R-HAR-3's minimum: two prose mandates share a subject on this many stemmed content words. */
export const SHARED_WORDS = 3

export const sharedWords = (a: Mandate, b: Mandate): ReadonlyArray<string> => [...a.words].filter((w) => b.words.has(w)).sort()

/**
 * Whether two mandates disagree: opposite polarity on one subject — the same
 * normalised subject when both are structured, else ≥ 3 shared stemmed
 * content words.
 */
export const mandatesDisagree = (a: Mandate, b: Mandate): boolean => {
  if (a.must === b.must) return false
  if (a.structured && b.structured) return normaliseSubject(a.subject) === normaliseSubject(b.subject)
  return sharedWords(a, b).length >= SHARED_WORDS
}
