import { Context, type Effect } from "effect"
import type { WorkspaceUnavailable } from "../domain/Errors.js"
import type { RunRecord, RunStatus, StepState } from "../domain/WorkflowRun.js"
import type { StateStoreError } from "./StateStore.js"

/** A step's state change: only the fields given change. */
export type StepUpdate = Partial<Pick<StepState, "status" | "exitCode" | "summary" | "startedAt" | "finishedAt" | "pid">> & { readonly addAttempt?: boolean }

/**
 * Workflow runs in state.db (spec 07 §2, R-RT-4, R-RT-5): each run's frozen
 * plan and hash, its status, and every step's durable state, written before
 * and after each attempt so a run killed at any point resumes where it
 * stopped. One process drives a run at a time (`exclusive`).
 */
export class WorkflowRuns extends Context.Tag("akm/WorkflowRuns")<WorkflowRuns, {
  /** Stores a new run with its steps pending, in one transaction. */
  readonly create: (run: Omit<RunRecord, "steps">, stepIds: ReadonlyArray<string>) => Effect.Effect<void, StateStoreError>
  readonly get: (id: string) => Effect.Effect<RunRecord | undefined, StateStoreError>
  /** Newest first, without steps' detail beyond their states. */
  readonly list: (limit: number) => Effect.Effect<ReadonlyArray<RunRecord>, StateStoreError>
  readonly setStatus: (id: string, status: RunStatus, message: string | undefined, at: string) => Effect.Effect<void, StateStoreError>
  readonly updateStep: (id: string, index: number, update: StepUpdate, at: string) => Effect.Effect<void, StateStoreError>
  /**
   * Runs `effect` as the only process driving run `id` (a lease file in
   * `$DATA/locks/`); a live holder fails it at once as busy, a dead one's
   * lease is taken over.
   */
  readonly exclusive: <A, E, R>(id: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | WorkspaceUnavailable, R>
}>() {}
