/**
 * One failure seen by a machine source (a CI report row, a JUnit testcase):
 * the raw material `ledger import-ci` turns into a `ci` occurrence, or into a
 * new failure record when no record has its fingerprint (spec 08 §2, R-LED-4).
 */
export interface FailureObservation {
  /** The day it was seen, `YYYY-MM-DD` (UTC). */
  readonly date: string
  readonly module: string
  readonly operation: string
  readonly errorClass: string
  /** The failure text as the report gave it: the symptom as first observed. */
  readonly message: string
  readonly source: "ci"
  /** Where in the report it came from ("report.xml", "report.tsv:12"), for notes and errors. */
  readonly origin: string
}

/** A problem with one place in an input file; `line` is 1-based. */
export interface InputProblem {
  readonly line: number
  readonly column?: number | undefined
  readonly message: string
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/

/**
 * The `YYYY-MM-DD` day of an ISO date or timestamp, or undefined when it is
 * not one. A timestamp without a zone counts as written (CI reports mostly
 * omit it), so the day is the one printed in the report.
 */
export const isoDay = (text: string): string | undefined => {
  const trimmed = text.trim()
  const match = ISO_DAY.exec(trimmed)
  if (match === null) return undefined
  const [, y, m, d] = match
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)))
  if (date.getUTCFullYear() !== Number(y) || date.getUTCMonth() !== Number(m) - 1 || date.getUTCDate() !== Number(d)) return undefined
  if (trimmed.length > 10 && Number.isNaN(Date.parse(trimmed.replace(" ", "T")))) return undefined
  return `${y}-${m}-${d}`
}

/** The UTC day of an epoch-milliseconds time. */
export const dayOf = (epochMillis: number): string => new Date(epochMillis).toISOString().slice(0, 10)

/** Longer messages are cut so a record stays readable; the start carries the symptom. */
export const MESSAGE_LIMIT = 4000

export const clip = (text: string, limit = MESSAGE_LIMIT): string => (text.length <= limit ? text : `${text.slice(0, limit)}\n… (${text.length - limit} more characters)`)
