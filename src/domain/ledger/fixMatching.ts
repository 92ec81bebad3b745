import { isUnderModule, type TouchingCommit } from "./churn.js"
import { dayOf } from "./FailureObservation.js"
import type { FixKind } from "./fixCommit.js"

/**
 * The fix-commit matching rule (spec 08 R-LED-4): a fix commit matches a
 * failure record when it names the record's fingerprint, or when it touches a
 * file under the record's module on the day of one of its occurrences or up
 * to `windowDays` days after it (the fix follows the failure). Only
 * occurrences from other sources anchor the window, so `git` occurrences never
 * chain a record forward by themselves. A fix commit matching nothing is
 * reported: something broke and was not recorded.
 */

export interface FixCommit extends TouchingCommit {
  readonly subject: string
  readonly message: string
  readonly kind: FixKind
}

export interface MatchableRecord {
  readonly id: string
  readonly fingerprint: string
  readonly module: string
  /** Occurrence days (`YYYY-MM-DD`) from sources other than git. */
  readonly days: ReadonlyArray<string>
}

export interface RecordMatch {
  readonly id: string
  readonly fingerprint: string
  /** The occurrence day that anchored the window, or undefined when the commit named the fingerprint. */
  readonly anchor: string | undefined
}

export interface FixMatch {
  readonly commit: FixCommit
  readonly records: ReadonlyArray<RecordMatch>
}

export interface FixMatching {
  readonly matched: ReadonlyArray<FixMatch>
  readonly unmatched: ReadonlyArray<FixCommit>
}

export const FIX_WINDOW_DAYS = 7

const DAY = 86_400_000
const dayNumber = (day: string): number => Math.floor(Date.parse(`${day}T00:00:00Z`) / DAY)

const matchOne = (commit: FixCommit, record: MatchableRecord, windowDays: number): RecordMatch | undefined => {
  if (record.fingerprint !== "" && commit.message.includes(record.fingerprint)) return { id: record.id, fingerprint: record.fingerprint, anchor: undefined }
  if (!commit.paths.some((path) => isUnderModule(path, record.module))) return undefined
  const committed = dayNumber(dayOf(commit.time))
  // The latest occurrence the commit can follow is the likeliest one it fixed.
  const anchor = [...record.days].sort().reverse().find((day) => {
    const after = committed - dayNumber(day)
    return after >= 0 && after <= windowDays
  })
  return anchor === undefined ? undefined : { id: record.id, fingerprint: record.fingerprint, anchor }
}

/** Commits keep their order (the history's, newest first); records theirs. */
export const matchFixCommits = (commits: ReadonlyArray<FixCommit>, records: ReadonlyArray<MatchableRecord>, windowDays = FIX_WINDOW_DAYS): FixMatching => {
  const matched: Array<FixMatch> = []
  const unmatched: Array<FixCommit> = []
  for (const commit of commits) {
    const hits = records.flatMap((record) => matchOne(commit, record, windowDays) ?? [])
    if (hits.length === 0) unmatched.push(commit)
    else matched.push({ commit, records: hits })
  }
  return { matched, unmatched }
}
