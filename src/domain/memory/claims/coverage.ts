import { type ClaimAnalysis, isPolar, type Mark, numberKey } from "./anchors.js"

/**
 * Whether a window of target claims states everything one source claim states
 * (spec 06 §8.4, R-MEM-4). Anchors must match exactly; content words must
 * overlap at least `minOverlap`. False "covered" is the dangerous direction,
 * so every doubt reads as "not covered".
 */

/** What a source claim lost in the closest target: the anchor kind and its value. */
export interface ClaimLoss {
  readonly kind: "negation" | "number" | "unit" | "date" | "qualifier" | "entity" | "words"
  readonly value: string
  /** One short human line. */
  readonly detail: string
}

export interface CoverageOptions {
  /** Share of the claim's content words the covering claims must contain (default 0.8: a claim of up to four content words keeps them all). */
  readonly minOverlap?: number
  /** Most adjacent target claims read together as one (default 2). */
  readonly window?: number
}

export const DEFAULT_MIN_OVERLAP = 0.8
export const DEFAULT_WINDOW = 2

/** Several adjacent target claims, read as one. */
export interface TargetWindow {
  readonly parts: ReadonlyArray<ClaimAnalysis>
  readonly numbers: ReadonlyArray<string>
  readonly values: ReadonlyArray<string>
  readonly dates: ReadonlySet<string>
  readonly marks: ReadonlyArray<Mark>
  readonly offered: ReadonlySet<string>
  readonly plain: string
  /** The plain text's whitespace/punctuation-separated tokens: most names are found here without a regex. */
  readonly tokens: ReadonlySet<string>
  readonly mentions: ReadonlySet<string>
}

export const windowOf = (claims: ReadonlyArray<ClaimAnalysis>): TargetWindow => ({
  parts: claims,
  numbers: claims.flatMap((claim) => claim.numbers.map(numberKey)),
  values: claims.flatMap((claim) => claim.numbers.map((anchor) => anchor.value)),
  dates: new Set(claims.flatMap((claim) => claim.dates)),
  marks: claims.flatMap((claim) => claim.marks),
  offered: new Set(claims.flatMap((claim) => claim.offered)),
  plain: claims.map((claim) => claim.plain).join(" "),
  tokens: new Set(claims.flatMap((claim) => claim.plain.split(/[\s,;!?()[\]"]+/).map((token) => token.replace(/[.:]+$/, "")))),
  mentions: new Set(claims.flatMap((claim) => [...claim.mentions.keys()]))
})

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A name is found when the target holds it as a whole token (a hyphen may be a space; a plural "s" may follow). */
const namePatterns = new Map<string, RegExp>()
const mentions = (window: TargetWindow, entity: string): boolean => {
  const { plain, tokens } = window
  if (tokens.has(entity) || tokens.has(`${entity}s`) || tokens.has(`${entity}'s`)) return true
  if (!/[\s-]/.test(entity)) return false
  let pattern = namePatterns.get(entity)
  if (pattern === undefined) {
    const body = escape(entity).replace(/-/g, "[- ]?")
    pattern = new RegExp(`(?<![\\p{L}\\p{N}_.-])${body}(?:'?s)?(?![\\p{L}\\p{N}_])`, "u")
    if (namePatterns.size > 10_000) namePatterns.clear()
    namePatterns.set(entity, pattern)
  }
  return plain.includes(entity.split("-")[0]!) && pattern.test(plain)
}

const countKinds = (marks: ReadonlyArray<Mark>, negation: boolean): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const mark of marks) if (mark.negation === negation) counts.set(mark.kind, (counts.get(mark.kind) ?? 0) + 1)
  return counts
}

const describe = (mark: Mark): string => (mark.on === "" ? `"${mark.kind}"` : `"${mark.kind}" (on "${mark.on}")`)

/** The words shared with the window, as a share of the claim's words (1 for a claim of anchors only). */
export const overlapOf = (source: ClaimAnalysis, window: TargetWindow): number =>
  source.words.length === 0 ? 1 : source.words.filter((word) => window.offered.has(word)).length / source.words.length

/** Every way `window` fails to state `source`, most telling first; empty when it covers it. */
export const lossesOf = (source: ClaimAnalysis, window: TargetWindow, minOverlap: number): ReadonlyArray<ClaimLoss> => {
  const losses: Array<ClaimLoss> = []
  for (const negation of [true, false]) {
    const kind = negation ? "negation" : "qualifier"
    const have = countKinds(window.marks, negation)
    const need = countKinds(source.marks, negation)
    for (const mark of source.marks.filter((m) => m.negation === negation)) {
      // when the target mentions what the mark bears on, the same mark must bear on it there
      const bound = mark.on !== "" && window.mentions.has(mark.on)
      const match = bound
        ? window.marks.some((m) => m.negation === negation && m.kind === mark.kind && m.on === mark.on)
        : (have.get(mark.kind) ?? 0) > 0
      if (!bound && match) have.set(mark.kind, have.get(mark.kind)! - 1)
      if (!match) losses.push({ kind, value: mark.kind, detail: `${kind} ${describe(mark)} is missing` })
    }
    // the target negates or qualifies every mention of something this claim states plainly
    const stated = new Set([...source.words, ...(source.leadName === undefined ? [] : [source.leadName]), ...source.entities, ...source.numbers.map((n) => n.value), ...source.dates])
    for (const mark of window.marks) {
      if (mark.negation === negation && mark.every === true && !need.has(mark.kind) && mark.on !== "" && stated.has(mark.on)) {
        losses.push({ kind, value: mark.kind, detail: `the target adds ${kind} ${describe(mark)}` })
      }
    }
  }
  if (window.parts.length > 1) {
    // read together only with claims on the same subject, fragments of bare anchors ("- from 2026-12-18 to 2027-01-05")
    // or a lead-in line ("Incident 2026-02-14:"),
    // and never with one that states another value in the same unit
    const words = new Set(source.words)
    const unrelated = window.parts.find(
      (part) => part.words.length > 0 && !part.plain.endsWith(":") && !part.offered.some((word) => words.has(word))
    )
    if (unrelated !== undefined) losses.push({ kind: "words", value: "", detail: "the adjacent target claims are about something else" })
    const units = new Set(source.numbers.map((n) => n.unit))
    const values = new Set(source.numbers.map(numberKey))
    const conflict = window.parts.flatMap((part) => part.numbers).find((n) => units.has(n.unit) && !values.has(numberKey(n)))
    if (conflict !== undefined) losses.push({ kind: "number", value: numberKey(conflict), detail: `the target also states "${numberKey(conflict)}"` })
  }
  const numbers = new Set(window.numbers)
  for (const anchor of source.numbers) {
    const key = numberKey(anchor)
    if (numbers.has(key)) continue
    const other = window.numbers.find((candidate) => candidate.split(" ")[0] === anchor.value)
    if (other !== undefined) losses.push({ kind: "unit", value: key, detail: `unit differs: "${key}" here, "${other}" in the target` })
    else losses.push({ kind: "number", value: key, detail: `number "${key}" is missing` })
  }
  for (const date of source.dates) {
    if (!window.dates.has(date)) losses.push({ kind: "date", value: date, detail: `date ${date} is missing` })
  }
  for (const entity of source.entities) {
    if (!mentions(window, entity)) losses.push({ kind: "entity", value: entity, detail: `"${entity}" is not named` })
  }
  if (source.lead !== undefined && !window.offered.has(source.lead)) {
    losses.push({ kind: "words", value: source.lead, detail: `its subject "${source.lead}" is missing` })
  }
  for (const word of source.words) {
    if (isPolar(word) && !window.offered.has(word)) losses.push({ kind: "words", value: word, detail: `"${word}" is missing (its opposite would reverse the claim)` })
  }
  const overlap = overlapOf(source, window)
  if (overlap < minOverlap) {
    const missing = source.words.filter((word) => !window.offered.has(word))
    losses.push({
      kind: "words",
      value: missing.join(" "),
      detail: `only ${Math.round(overlap * 100)}% of its words are stated (missing: ${missing.slice(0, 4).join(", ")})`
    })
  }
  return losses
}
