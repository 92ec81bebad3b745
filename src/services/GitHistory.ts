import { Context, Data, type Effect } from "effect"

/** One commit of the walked history. */
export interface HistoryCommit {
  readonly sha: string
  /** Committer time, epoch milliseconds: when the change landed. */
  readonly time: number
  readonly message: string
  readonly parents: number
  /** Repository-relative POSIX paths changed against the first parent; every file for a root commit, none for a merge. */
  readonly paths: ReadonlyArray<string>
}

export interface HistoryWindow {
  /** The repository's top folder (found from the folder given). */
  readonly root: string
  /** Newest first. */
  readonly commits: ReadonlyArray<HistoryCommit>
}

/** The history could not be read completely: not a repository, shallow inside the window, or damaged (exit 1). */
export class GitHistoryUnreadable extends Data.TaggedError("GitHistoryUnreadable")<{
  readonly dir: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.dir}: ${this.reason}`
  }
}

/**
 * Read-only access to a repository's commit history (spec 08 R-LED-4,
 * `ledger mine-git`). It never writes to the repository. A history that ends
 * early (a shallow clone cut inside the window) or has a missing or damaged
 * object fails as a whole: half a history would report fixes as unmatched.
 */
export class GitHistory extends Context.Tag("akm/GitHistory")<GitHistory, {
  /** Commits reachable from HEAD whose committer time is after `since` (epoch milliseconds); none when HEAD names no commit yet. */
  readonly since: (dir: string, since: number) => Effect.Effect<HistoryWindow, GitHistoryUnreadable>
  /**
   * The files in the repository's index (tracked and staged), repository-relative
   * POSIX paths, sorted; the rule conflict checker matches scopes against them.
   */
  readonly trackedFiles: (dir: string) => Effect.Effect<TrackedFiles, GitHistoryUnreadable>
  /**
   * The working tree against HEAD (staged or not) plus untracked files that
   * .gitignore does not ignore: what `akm scope plan` scopes the stations by.
   * Before the first commit every file is untracked. `skip` (a
   * repository-relative path, file or folder) leaves paths out before they
   * are read: an ignored folder is never walked.
   */
  readonly workingChanges: (dir: string, skip?: (path: string) => boolean) => Effect.Effect<WorkingChanges, GitHistoryUnreadable>
  /** `user.name` as git would use it (the repository's config, then the global one); undefined when neither sets it. */
  readonly userName: (dir: string) => Effect.Effect<string | undefined>
}>() {}

export interface WorkingChange {
  /** Repository-relative POSIX path. */
  readonly path: string
  readonly status: "added" | "modified" | "deleted" | "untracked"
}

export interface WorkingChanges {
  /** The repository's top folder (found from the folder given). */
  readonly root: string
  /** Sorted by path. */
  readonly changes: ReadonlyArray<WorkingChange>
  /** The commit HEAD names (undefined before the first commit). */
  readonly head?: string | undefined
}

export interface TrackedFiles {
  /** The repository's top folder (found from the folder given). */
  readonly root: string
  readonly files: ReadonlyArray<string>
}
