import { Context, Data, type Effect } from "effect"
import type { Diagnostic } from "../domain/Diagnostic.js"
import type { WorkspaceUnavailable } from "../domain/Errors.js"
import type { FileChange } from "../domain/FileChange.js"

/** The change set was not applied; nothing was written (R-TX-1, R-TX-3). */
export class TransactionRefused extends Data.TaggedError("TransactionRefused")<{
  /** The bundle-relative path (or bundle name) that made the set fail. */
  readonly path: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.path}: ${this.reason}`
  }
}

/** A file's current bytes no longer match the hash the change was made against; nothing was written (R-TX-1, R-TX-6). */
export class StaleBeforeHash extends Data.TaggedError("StaleBeforeHash")<{
  readonly bundle: string
  readonly path: string
  /** The hash the change expected; null = the path should not exist. */
  readonly expected: string | null
  /** The hash found; null = the path does not exist. */
  readonly actual: string | null
  readonly hint: string
}> {
  override get message(): string {
    const found = this.actual === null ? "it no longer exists" : this.expected === null ? "it exists already" : "its bytes differ"
    return `${this.bundle}//${this.path} changed since the change was made (${found})`
  }
}

/** The bundle's adapter reports new errors on the changed tree (spec 05 §2 step 5); nothing was written. */
export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{
  readonly diagnostics: ReadonlyArray<Diagnostic>
  readonly hint: string
}> {
  override get message(): string {
    const first = this.diagnostics[0]
    const more = this.diagnostics.length > 1 ? ` (and ${this.diagnostics.length - 1} more)` : ""
    return first === undefined ? "the change set does not validate" : `${first.path}: ${first.message} [${first.code}]${more}`
  }
}

/** A directory a set created inside a bundle (relative to its root), recorded so revert can remove it. */
export interface CreatedDir {
  readonly bundle: string
  readonly path: string
}

/** One applied file change, as recorded for review and revert. */
export interface AppliedChange {
  readonly bundle: string
  readonly path: string
  readonly beforeHash: string | null
  /** null = deleted. */
  readonly afterHash: string | null
  /** sha256 of the replaced bytes, kept in $DATA/archive/blobs/sha256/ (absent for creates). */
  readonly backup?: string
}

export interface ApplyRequest {
  /** The proposal id; names the journal ($DATA/txn/<id>/). Letters, digits, '.', '_' and '-'. */
  readonly id: string
  readonly changes: ReadonlyArray<FileChange>
  /** The git commit message for bundles that commit their changes. */
  readonly message?: string
  /**
   * Overrides the bundle's git.commit for this set: false when the set only
   * brings the work tree up to commits that exist already (`akm sync`
   * fast-forward), true when it replays akm's own commits.
   */
  readonly gitCommit?: boolean
  /** false skips step 5: the set carries changes validated before (a teammate's pushed commits, a replayed accept). */
  readonly validate?: boolean
}

export interface ApplyResult {
  readonly id: string
  readonly changes: ReadonlyArray<AppliedChange>
  readonly gitCommits: ReadonlyArray<{ readonly bundle: string; readonly sha: string }>
  /** Problems after the commit point that did not undo the change (a git commit that could not be made). */
  readonly warnings?: ReadonlyArray<string>
  /** Directories the set created for its new files, parents first (absent when none). */
  readonly createdDirs?: ReadonlyArray<CreatedDir>
}

export interface RevertRequest {
  readonly id: string
  /** The changes of the accepted set, as its ApplyResult recorded them. */
  readonly changes: ReadonlyArray<AppliedChange>
  readonly message?: string
  /**
   * The directories the accepted set created: after its new files are
   * removed, those left empty are removed too (deepest first; never a bundle
   * root, never one that was there before the set).
   */
  readonly createdDirs?: ReadonlyArray<CreatedDir>
}

/** What recovery did with the unfinished journals it found (R-TX-5). */
export interface RecoveryReport {
  /** Journal ids rolled back to their exact pre-state. */
  readonly rolledBack: ReadonlyArray<string>
  /** Journal ids past their commit mark, finished. */
  readonly rolledForward: ReadonlyArray<string>
  /**
   * Journals left alone or only partly resolved, and why. `damaged`: the
   * journal (or retire record) is unreadable or names what no write may
   * touch; it stays in place and every writer refuses until
   * `resolve` (akm proposal recover) deals with it.
   */
  readonly refused: ReadonlyArray<{ readonly id: string; readonly reason: string; readonly damaged?: true }>
}

/** A set whose files are final but whose outcome the caller has not recorded yet (see `finished`). */
export interface FinishedSet {
  readonly id: string
  readonly op: "apply" | "revert" | "retire"
  readonly changes: ReadonlyArray<AppliedChange>
  /** Directories the set created (apply), parents first. */
  readonly createdDirs?: ReadonlyArray<CreatedDir>
}

/** A transaction recovery will not act on, and why. */
export interface DamagedTransaction {
  readonly id: string
  readonly reason: string
}

/** One file of a transaction as `resolve` knows it when the journal itself cannot be read. */
export interface ResolveTarget {
  readonly bundle: string
  readonly path: string
  readonly beforeHash: string | null
  readonly afterHash: string | null
  /** The new bytes, when the caller has them (a proposal's change). */
  readonly after?: Uint8Array
}

export interface ResolveRequest {
  readonly id: string
  /** rollback: every file back to its before-bytes; forward: every file at its after-bytes. */
  readonly direction: "rollback" | "forward"
  /** What the set was meant to do, used when its journal cannot be read (from the proposal). */
  readonly fallback?: { readonly op: "apply" | "revert"; readonly targets: ReadonlyArray<ResolveTarget> }
}

export interface ResolveResult {
  readonly id: string
  /** What the transaction was; "unknown" when neither its journal nor a fallback said. */
  readonly op: "apply" | "revert" | "retire" | "unknown"
  readonly direction: "rollback" | "forward"
  /** The set's files as they now stand, in the direction asked (forward: as applied). */
  readonly changes: ReadonlyArray<AppliedChange>
  /** Files this call wrote or removed. */
  readonly restored: ReadonlyArray<string>
  /** Files left as they were, and why; non-empty = the journal was set aside in txn/.unresolved/. */
  readonly problems: ReadonlyArray<string>
}

/**
 * The one way akm writes into bundle roots (spec 05 §2): a set of FileChanges
 * applied atomically under the workspace mutation lease, with before-hashes
 * verified under the lease, adapter validation of the changed tree, a fsynced
 * journal, content-addressed backups and crash recovery. Paths are
 * bundle-relative; bundles are resolved through the workspace config.
 *
 * Index refresh and outcome recording (steps 10 and 12) belong to the caller
 * after `apply` returns: the journal is gone only once the files are final.
 */
export class Transaction extends Context.Tag("akm/Transaction")<Transaction, {
  readonly apply: (request: ApplyRequest) => Effect.Effect<ApplyResult, TransactionRefused | StaleBeforeHash | ValidationFailed | WorkspaceUnavailable>
  /** Restores the replaced bytes if every file still matches its after-hash; otherwise refuses naming the file (R-TX-6). */
  readonly revert: (request: RevertRequest) => Effect.Effect<ApplyResult, TransactionRefused | StaleBeforeHash | WorkspaceUnavailable>
  /**
   * Runs `effect` holding the workspace mutation lease (and the cross-server
   * lock) from start to end: the engine's operations inside take it without
   * waiting for themselves, and walks inside share one listing, taken under
   * the lease, which the engine's check reuses until anything is written
   * (decision 0049). A direct write (remember) holds it from its name choice
   * to its commit, so it walks once.
   */
  readonly hold: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | WorkspaceUnavailable, R>
  /** Resolves unfinished journals; run at the start of every writing command (R-TX-5). */
  readonly recover: Effect.Effect<RecoveryReport, WorkspaceUnavailable>
  /**
   * Cross-bundle moves (R-TX-9): applies `publish` (validated), then `retire`.
   * When phase two fails the published copy stays and `retire` is undefined;
   * a record of the pending retire lets recovery resume it.
   */
  readonly twoPhase: (publish: ApplyRequest, retire: ApplyRequest) => Effect.Effect<
    { readonly publish: ApplyResult; readonly retire: ApplyResult | undefined },
    TransactionRefused | StaleBeforeHash | ValidationFailed | WorkspaceUnavailable
  >
  /**
   * Sets whose files are final (applied, or rolled forward by recovery in any
   * process) and whose outcome has not been acknowledged: the caller records
   * each, then calls `acknowledge`. Kept durably, so a crash between the two
   * is caught up by the next command.
   */
  readonly finished: Effect.Effect<ReadonlyArray<FinishedSet>, WorkspaceUnavailable>
  readonly acknowledge: (id: string, op: FinishedSet["op"]) => Effect.Effect<void, WorkspaceUnavailable>
  /** Unfinished transactions recovery refuses to act on (read-only; takes no lease). */
  readonly inspect: Effect.Effect<ReadonlyArray<DamagedTransaction>, WorkspaceUnavailable>
  /**
   * Resolves one unfinished (typically damaged) transaction by hand: each file
   * provably at one end of the change is brought to the end asked for, with
   * bytes from the backups (or the fallback's bytes); files in any other
   * state, or that no write may touch, are left and reported.
   */
  readonly resolve: (request: ResolveRequest) => Effect.Effect<ResolveResult, TransactionRefused | WorkspaceUnavailable>
  /** A backed-up blob by its sha256, or undefined when the store does not hold it intact. */
  readonly blob: (hash: string) => Effect.Effect<Uint8Array | undefined, WorkspaceUnavailable>
  /**
   * Keeps bytes in the same content-addressed store and returns their sha256:
   * a proposal's before-bytes, the base `akm proposal refresh` merges from.
   */
  readonly keep: (bytes: Uint8Array) => Effect.Effect<string, WorkspaceUnavailable>
}>() {}
