import { Clock, Effect } from "effect"
import * as path from "node:path"
import { UsageError } from "../../domain/Errors.js"
import { hotspots, moduleChurn, type Hotspot, type ModuleChurn } from "../../domain/ledger/churn.js"
import { classifyCommit, subjectOf } from "../../domain/ledger/fixCommit.js"
import { matchFixCommits, type FixCommit, type FixMatching, type MatchableRecord } from "../../domain/ledger/fixMatching.js"
import { parseSince } from "../../domain/ledger/since.js"
import { GitHistory } from "../../services/GitHistory.js"

export interface GitMining extends FixMatching {
  /** The repository's top folder. */
  readonly root: string
  /** Epoch milliseconds the window starts at. */
  readonly since: number
  /** Commits walked in the window. */
  readonly commits: number
  /** Churn of the recorded modules, in record order. */
  readonly churn: ReadonlyArray<ModuleChurn>
  /** Files with repeated churn (≥ 3 commits in 14 days). */
  readonly hotspots: ReadonlyArray<Hotspot>
}

/**
 * The git half of `ledger mine-git` (spec 08 R-LED-4): walks the history since
 * `--since` (`90d`, `12w` or an ISO date), picks the fix and revert commits
 * (merges never count: their branch's own commits do), matches them against
 * the records, and measures churn. Pure reading: the caller turns matches into
 * `git` occurrences.
 */
export const mineGitHistory = Effect.fn("ledger.mineGitHistory")(function* (dir: string, sinceText: string, records: ReadonlyArray<MatchableRecord>) {
  const now = yield* Clock.currentTimeMillis
  const since = parseSince(sinceText, now)
  if (since === undefined) return yield* new UsageError({ message: `--since '${sinceText}' is not a span or a date`, hint: "give days or weeks (90d, 12w) or an ISO date (2026-09-01)" })
  const history = yield* (yield* GitHistory).since(dir, since)
  // Modules are relative to the folder mined, git's paths to the repository's top; in a project
  // below the top, commits that touch nothing of it are not its history.
  const below = path.relative(history.root, path.resolve(dir)).split(path.sep).join("/")
  const commits = below === "" || below.startsWith("..")
    ? history.commits
    : history.commits.map((commit) => ({ ...commit, paths: commit.paths.filter((p) => p.startsWith(`${below}/`)).map((p) => p.slice(below.length + 1)) })).filter((commit) => commit.paths.length > 0)
  const fixes: Array<FixCommit> = commits.flatMap((commit) => {
    const kind = commit.parents > 1 ? undefined : classifyCommit(commit.message)
    return kind === undefined ? [] : [{ sha: commit.sha, time: commit.time, paths: commit.paths, message: commit.message, subject: subjectOf(commit.message), kind }]
  })
  const matching = matchFixCommits(fixes, records)
  return {
    root: history.root,
    since,
    commits: commits.length,
    ...matching,
    churn: moduleChurn(commits, records.map((record) => record.module)),
    hotspots: hotspots(commits)
  } satisfies GitMining as GitMining
})
