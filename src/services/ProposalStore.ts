import { Context, type Effect } from "effect"
import type { AppliedFile, ChangeClass, FileAction, Proposal, ProposalStatus } from "../domain/Proposal.js"
import type { StateStoreError } from "./StateStore.js"

/** A proposal without its bytes, for listings. */
export interface ProposalSummary {
  readonly id: string
  readonly title: string
  readonly recipe: string
  readonly status: ProposalStatus
  readonly changeClass: ChangeClass
  readonly createdAt: string
  readonly files: ReadonlyArray<{ readonly bundle: string; readonly path: string; readonly action: FileAction }>
}

export interface ProposalFilter {
  readonly status?: ProposalStatus | undefined
  readonly recipe?: string | undefined
  /** Proposals with at least one change in this bundle. */
  readonly bundle?: string | undefined
  readonly limit?: number | undefined
}

/**
 * What happened to a proposal, in order: a decision (the new status) or a
 * refused attempt that left the status as it was (a lease timeout, a revert of
 * a file edited since).
 */
export interface ProposalOutcome {
  readonly id: number
  readonly at: string
  readonly kind: ProposalStatus | "refused"
  /** accepted/reverted: the files as the engine applied them, and git commits. */
  readonly changes?: ReadonlyArray<AppliedFile>
  readonly gitCommits?: ReadonlyArray<{ readonly bundle: string; readonly sha: string }>
  /** accepted: the directories the change created for new files, which revert removes when they are empty. */
  readonly createdDirs?: ReadonlyArray<{ readonly bundle: string; readonly path: string }>
  /** failed/refused: the error that stopped it. */
  readonly error?: { readonly tag: string; readonly message: string; readonly path?: string }
  readonly note?: string
}

export interface Decision {
  /** The move happens only from one of these statuses (compare-and-set). */
  readonly from: ReadonlyArray<ProposalStatus>
  readonly to: ProposalStatus
  readonly at: string
  readonly by: string
  readonly reason?: string | undefined
  readonly outcome?: Omit<ProposalOutcome, "id" | "at" | "kind"> | undefined
}

/**
 * Proposals in state.db (spec 05 §1, §3): the proposal, its changes with the
 * exact after-bytes (R-TX-2), what happened to it (outcomes) and an event per
 * step in the workspace event log. Each write is one BEGIN IMMEDIATE
 * transaction, so a status, its outcome and its event never disagree.
 */
export class ProposalStore extends Context.Tag("akm/ProposalStore")<ProposalStore, {
  /** Stores a new pending proposal (event `proposal.created`). */
  readonly create: (proposal: Proposal) => Effect.Effect<void, StateStoreError>
  /** The whole proposal with its bytes; `backup` once it was accepted. */
  readonly get: (id: string) => Effect.Effect<Proposal | undefined, StateStoreError>
  /** Full ids starting with `prefix` (short ids), at most `limit`. */
  readonly idsStartingWith: (prefix: string, limit: number) => Effect.Effect<ReadonlyArray<string>, StateStoreError>
  /** Newest first. */
  readonly list: (filter: ProposalFilter) => Effect.Effect<ReadonlyArray<ProposalSummary>, StateStoreError>
  /**
   * Moves the proposal to `to` when its status is one of `from`, recording the
   * outcome and the event `proposal.<to>`; returns the status it found.
   */
  readonly decide: (id: string, decision: Decision) => Effect.Effect<{ readonly moved: boolean; readonly status: ProposalStatus | undefined }, StateStoreError>
  /** Records an attempt that changed nothing (event `proposal.refused`). */
  readonly refused: (id: string, at: string, error: NonNullable<ProposalOutcome["error"]>) => Effect.Effect<void, StateStoreError>
  /** Oldest first. */
  readonly outcomes: (id: string) => Effect.Effect<ReadonlyArray<ProposalOutcome>, StateStoreError>
  /** The files of the accepted outcome, as the engine applied them (for revert). */
  readonly applied: (id: string) => Effect.Effect<ReadonlyArray<AppliedFile> | undefined, StateStoreError>
  /** Proposals with this fingerprint, newest first (R-IMP-3: no duplicate work). */
  readonly withFingerprint: (fingerprint: string) => Effect.Effect<ReadonlyArray<ProposalSummary>, StateStoreError>
  /** Pending proposals created before `before` become expired; returns their ids. */
  readonly expire: (before: string, at: string) => Effect.Effect<ReadonlyArray<string>, StateStoreError>
  /** Rewrites the bundle name of every change and applied file (R-REF-6). */
  readonly renameBundle: (from: string, to: string) => Effect.Effect<void, StateStoreError>
}>() {}
