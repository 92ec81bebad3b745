import { Context, type Effect } from "effect"
import type { WorkspaceUnavailable } from "../domain/Errors.js"
import type { AttemptRecord, RunRecord } from "../domain/Improve.js"
import type { StateStoreError } from "./StateStore.js"

/** What `withRunLease` ran into: the run itself, or a live holder when told to skip. */
export type LeaseOutcome<A> =
  | { readonly _tag: "Ran"; readonly value: A }
  | { readonly _tag: "Locked"; readonly holder: string }

/** A field outcome of an improve proposal (Level 3): what happened to it after it was made. */
export interface FieldOutcome {
  readonly proposalId: string
  readonly fingerprint: string
  readonly target: string
  /** The proposal's status when last seen: accepted, rejected, reverted, expired, failed. */
  readonly kind: string
  readonly at: string
}

/**
 * Improve's own records in state.db (spec 06 §3, §4): run records
 * (R-IMP-7), one attempt per fingerprint per run (R-IMP-3), field outcomes
 * per change (Level 3), and the workspace improve lease (R-IMP-4).
 */
export class ImproveStore extends Context.Tag("akm/ImproveStore")<ImproveStore, {
  /**
   * Runs `effect` as the workspace's only improve run. A live holder makes
   * it wait (bounded), or, with `skipIfLocked`, return Locked at once; a
   * stale lease (dead pid) is taken over with a `lease.taken-over` event.
   */
  readonly withRunLease: <A, E, R>(effect: Effect.Effect<A, E, R>, options: { readonly skipIfLocked: boolean }) => Effect.Effect<LeaseOutcome<A>, E | WorkspaceUnavailable, R>
  readonly recordRun: (run: RunRecord) => Effect.Effect<void, StateStoreError>
  /** Newest first. */
  readonly runs: (last: number) => Effect.Effect<ReadonlyArray<RunRecord>, StateStoreError>
  readonly recordAttempt: (attempt: AttemptRecord) => Effect.Effect<void, StateStoreError>
  /** Every attempt with this fingerprint, newest first. */
  readonly attempts: (fingerprint: string) => Effect.Effect<ReadonlyArray<AttemptRecord>, StateStoreError>
  /** Attempts that made a proposal, newest first (Level 3 bookkeeping). */
  readonly proposedAttempts: Effect.Effect<ReadonlyArray<AttemptRecord>, StateStoreError>
  readonly recordOutcome: (outcome: FieldOutcome) => Effect.Effect<void, StateStoreError>
  /** Every recorded field outcome, oldest first. */
  readonly outcomes: Effect.Effect<ReadonlyArray<FieldOutcome>, StateStoreError>
}>() {}
