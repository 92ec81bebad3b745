import { Context, Data, type Effect, type Redacted } from "effect"

/**
 * A writable git bundle's checkout as `akm sync` sees it (spec 02 §2 git,
 * issue 26): the branch, its upstream and the bundle folder inside it.
 */
export interface Checkout {
  /** The repository's top folder (real path). */
  readonly root: string
  /** The bundle root relative to `root`, POSIX, "" when they are the same folder. */
  readonly prefix: string
  /** The checked-out branch, short name ("main"). */
  readonly branch: string
  /** The commit the branch names. */
  readonly head: string
  /** The upstream: remote name, its URL and the branch on the remote ("refs/heads/main"). */
  readonly remote: string
  readonly url: string
  readonly remoteRef: string
}

/** One file moved from one commit's bytes to another's; paths are bundle-relative. */
export interface FileMove {
  readonly path: string
  /** The bytes the file must have now; undefined = it must not exist. */
  readonly before: Uint8Array | undefined
  /** undefined = delete. */
  readonly after: Uint8Array | undefined
  readonly executable: boolean
}

/** A local commit of akm's own (exact-path, with the Akm-Transaction trailer), as replayed on the fetched tip. */
export interface OwnCommit {
  readonly sha: string
  /** The message without akm's trailer: the engine adds a new one when it commits the replay. */
  readonly message: string
  readonly subject: string
  /** The commit's changes against the bytes they now apply to (the fetched tip plus the earlier replays). */
  readonly changes: ReadonlyArray<FileMove>
}

export interface ForeignCommit {
  readonly sha: string
  readonly subject: string
}

/**
 * What sync would do; nothing is written to make it. `changes` always moves
 * the work tree from HEAD's bytes to the fetched tip's (the fast-forward part).
 */
export type SyncPlan =
  | { readonly kind: "up-to-date"; readonly tip: string }
  /** Only local commits; nothing new on the remote. `foreign` lists the user's own commits among them. */
  | { readonly kind: "ahead"; readonly tip: string; readonly own: ReadonlyArray<OwnCommit>; readonly foreign: ReadonlyArray<ForeignCommit> }
  | { readonly kind: "fast-forward"; readonly tip: string; readonly incoming: number; readonly changes: ReadonlyArray<FileMove> }
  | { readonly kind: "replay"; readonly tip: string; readonly incoming: number; readonly changes: ReadonlyArray<FileMove>; readonly own: ReadonlyArray<OwnCommit> }
  /** akm's commits whose before-bytes the remote changed: nothing can be replayed. */
  | { readonly kind: "conflict"; readonly tip: string; readonly incoming: number; readonly paths: ReadonlyArray<string> }
  /** The user's own commits are not on the remote and the remote moved on: sync never merges or rebases them. */
  | { readonly kind: "diverged"; readonly tip: string; readonly incoming: number; readonly foreign: ReadonlyArray<ForeignCommit> }
  /** The remote changed what akm cannot write: files outside the bundle folder, links, submodules. */
  | { readonly kind: "outside"; readonly tip: string; readonly incoming: number; readonly paths: ReadonlyArray<string> }

/** How to reach the remote: plain http only when allowed; the credential travels redacted. */
export interface RemoteAccess {
  readonly allowInsecure: boolean
  readonly token: Redacted.Redacted<string> | undefined
}

/**
 * The branch move a fast-forward is about to make, recorded durably before
 * the engine writes the tip's files (decision 0037): if akm dies between
 * those writes and the move, the next `akm sync` finds it and finishes the
 * move (or drops it when the engine rolled the files back).
 */
export interface SyncIntent {
  readonly branch: string
  readonly from: string
  readonly to: string
  /** The engine transaction that writes the files. */
  readonly transaction: string
}

/** Where the work tree stands for the paths that differ between two commits. */
export type WorkTreeState =
  | { readonly at: "to" }
  | { readonly at: "from" }
  /** Some paths hold neither commit's bytes (edited since), or the two are mixed. */
  | { readonly at: "neither"; readonly paths: ReadonlyArray<string> }

/** Sync cannot go on for this checkout; nothing was written to it. */
export class SyncProblem extends Data.TaggedError("SyncProblem")<{
  readonly dir: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.dir}: ${this.reason}`
  }
}

/**
 * The git side of `akm sync` (issue 26): reading a user's checkout, fetching
 * its upstream branch over https into akm's cache, planning, moving the
 * branch after the transaction engine moved the files, and pushing. It never
 * merges, rebases, resets or stashes; file bytes are written only by the
 * transaction engine.
 */
export class GitSync extends Context.Tag("akm/GitSync")<GitSync, {
  /** The checkout holding `bundleRoot`: its branch and upstream. */
  readonly open: (bundleRoot: string) => Effect.Effect<Checkout, SyncProblem>
  /** Fetches the upstream branch into akm's cache gitdir (never into the checkout) and returns its tip. */
  readonly fetch: (checkout: Checkout, access: RemoteAccess) => Effect.Effect<string, SyncProblem>
  readonly plan: (checkout: Checkout, tip: string) => Effect.Effect<SyncPlan, SyncProblem>
  /**
   * After the engine wrote the tip's bytes: copies the fetched objects into the
   * checkout, moves the branch from `from` to `to` (refused when it no longer
   * names `from`) and brings the changed paths' index entries along.
   */
  readonly advance: (checkout: Checkout, from: string, to: string) => Effect.Effect<void, SyncProblem>
  /**
   * `advance` for a move an interrupted sync left half done: the branch may
   * name `from` (moved now) or `to` already (only the index entries follow).
   */
  readonly finish: (checkout: Checkout, from: string, to: string) => Effect.Effect<void, SyncProblem>
  /** Records the move before the files are written (fsynced); replaces an earlier record for the checkout. */
  readonly intend: (checkout: Checkout, intent: SyncIntent) => Effect.Effect<void, SyncProblem>
  /** The move recorded for this checkout and not settled, if any. */
  readonly intent: (checkout: Checkout) => Effect.Effect<SyncIntent | undefined, SyncProblem>
  /** Removes the record: the move was made, or will not be. */
  readonly settle: (checkout: Checkout) => Effect.Effect<void, SyncProblem>
  /** Whether the work tree holds `to`'s bytes, `from`'s, or neither, for every path that differs between them. */
  readonly workTree: (checkout: Checkout, from: string, to: string) => Effect.Effect<WorkTreeState, SyncProblem>
  /** Pushes the branch to its upstream (fast-forward only); returns the pushed commit. */
  readonly push: (checkout: Checkout, access: RemoteAccess) => Effect.Effect<string, SyncProblem>
}>() {}
