import { Effect } from "effect"
import type { Hotspot, ModuleChurn } from "../../domain/ledger/churn.js"
import { dayOf } from "../../domain/ledger/FailureObservation.js"
import type { FixKind } from "../../domain/ledger/fixCommit.js"
import type { MatchableRecord } from "../../domain/ledger/fixMatching.js"
import { fieldText } from "../../domain/ledger/index.js"
import { mineGitHistory } from "./gitMining.js"
import { resolveProjectBundle } from "./projectBundle.js"
import { recordOccurred } from "./record.js"
import { loadLedger } from "./store.js"
import { ledgerRedactor } from "./write.js"

export interface MineGitInput {
  readonly bundle?: string | undefined
  readonly cwd: string
  /** `90d` (default), `12w`, or an ISO date. */
  readonly since?: string | undefined
}

export interface MinedCommit {
  readonly sha: string
  /** The committer's day, `YYYY-MM-DD`. */
  readonly date: string
  readonly kind: FixKind
  readonly subject: string
}

export interface MatchedCommit extends MinedCommit {
  readonly records: ReadonlyArray<{
    readonly id: string
    readonly fingerprint: string
    /** The occurrence day the commit followed; absent when the commit named the fingerprint. */
    readonly after?: string
    /** False when this commit was already a `git` occurrence of the record (mining twice counts once). */
    readonly added: boolean
    readonly occurrences: number
  }>
}

export interface MineGitResult {
  readonly bundle: string
  readonly root: string
  /** The window's first day, `YYYY-MM-DD`. */
  readonly since: string
  readonly commits: number
  /** Fix and revert commits that match a recorded failure: each became a `git` occurrence. */
  readonly matched: ReadonlyArray<MatchedCommit>
  /** Fix and revert commits matching no record: something broke and was not recorded. */
  readonly unmatched: ReadonlyArray<MinedCommit>
  readonly churn: ReadonlyArray<ModuleChurn>
  readonly hotspots: ReadonlyArray<{ readonly path: string; readonly commits: number; readonly from: string; readonly to: string }>
  /** Failure records that could not be read (`akm ledger verify` says why); they take no part. */
  readonly unreadable: ReadonlyArray<string>
}

const SHORT = 12

/**
 * `akm ledger mine-git [--since 90d]` (spec 08 R-LED-4): the history is the
 * honesty check on self-reports. A fix or revert commit matching a recorded
 * failure (it touches the module within 7 days after an occurrence, or names
 * the fingerprint) becomes a `git` occurrence of it, noted with the commit;
 * the rest are reported as unmatched, with the churn of the recorded modules
 * and the files with repeated churn. The history is read whole before anything
 * is written: a shallow or damaged one writes nothing.
 */
export const mineGit = Effect.fn("ledger.mineGit")(function* (input: MineGitInput) {
  const target = yield* resolveProjectBundle(input)
  const loaded = yield* loadLedger(target.root, ["failure"])
  const records: Array<MatchableRecord> = loaded.flatMap((entry) => {
    if (entry._tag !== "Ok") return []
    const module = fieldText(entry.record, "module")
    if (module === undefined) return []
    return [{ id: entry.record.id, fingerprint: entry.record.fingerprint ?? "", module, days: entry.record.occurrences.filter((o) => o.source !== "git").map((o) => o.date) }]
  })
  const mined = yield* mineGitHistory(target.root, input.since ?? "90d", records)
  const { redact } = yield* ledgerRedactor(target)
  const summary = (commit: { readonly sha: string; readonly time: number; readonly kind: FixKind; readonly subject: string }): MinedCommit => ({
    sha: commit.sha,
    date: dayOf(commit.time),
    kind: commit.kind,
    subject: redact(commit.subject)
  })
  const matched: Array<MatchedCommit> = []
  // Oldest first, so a record's occurrences are appended in date order.
  for (const match of [...mined.matched].reverse()) {
    const commit = summary(match.commit)
    const records: Array<MatchedCommit["records"][number]> = []
    for (const hit of match.records) {
      const written = yield* recordOccurred({ id: `failure/${hit.id}`, bundle: target.name, cwd: input.cwd, source: "git", date: commit.date, note: `${commit.kind} commit ${commit.sha.slice(0, SHORT)}: ${commit.subject}` })
      records.push({ id: hit.id, fingerprint: hit.fingerprint, ...(hit.anchor === undefined ? {} : { after: hit.anchor }), added: written.changed, occurrences: written.occurrences })
    }
    matched.push({ ...commit, records })
  }
  return {
    bundle: target.name,
    root: mined.root,
    since: dayOf(mined.since),
    commits: mined.commits,
    matched: matched.reverse(),
    unmatched: mined.unmatched.map(summary),
    churn: mined.churn.map((c) => ({ ...c, module: redact(c.module) })),
    hotspots: mined.hotspots.map((h: Hotspot) => ({ path: redact(h.path), commits: h.commits, from: dayOf(h.from), to: dayOf(h.to) })),
    unreadable: loaded.flatMap((entry) => (entry._tag === "Bad" ? [entry.file.path] : []))
  } satisfies MineGitResult as MineGitResult
})
