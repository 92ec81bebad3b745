import { Context, type Effect } from "effect"
import type { StateStoreError } from "./StateStore.js"

/** A task's local state (spec 07 §3): whether it is enabled and what akm wrote to the scheduler for it. */
export interface TaskRecord {
  /** The binding alias the task runs by. */
  readonly alias: string
  readonly exportRef: string
  /** The approved digest the scheduler entry runs (the binding's, copied at enable). */
  readonly digest: string
  /** The schedule as written to the scheduler. */
  readonly schedule: string
  readonly enabled: boolean
  readonly updatedAt: string
}

export type TaskRunStatus = "running" | "ok" | "failed" | "timeout" | "not-started"

export interface TaskRun {
  readonly id: number
  readonly alias: string
  readonly exportRef: string
  readonly digest: string
  readonly trigger: "manual" | "scheduled"
  /** command, workflow or prompt. */
  readonly target: string
  readonly startedAt: string
  readonly finishedAt?: string | undefined
  readonly durationMs?: number | undefined
  readonly exit?: number | undefined
  readonly status: TaskRunStatus
}

/** Tasks and their run history in state.db (migration 0010_tasks). */
export class TaskStore extends Context.Tag("akm/TaskStore")<TaskStore, {
  readonly put: (record: TaskRecord) => Effect.Effect<void, StateStoreError>
  readonly get: (alias: string) => Effect.Effect<TaskRecord | undefined, StateStoreError>
  readonly list: Effect.Effect<ReadonlyArray<TaskRecord>, StateStoreError>
  /** Records a run as started; its id for finishRun. */
  readonly startRun: (run: Omit<TaskRun, "id" | "status" | "finishedAt" | "durationMs" | "exit">) => Effect.Effect<number, StateStoreError>
  readonly finishRun: (id: number, outcome: { readonly finishedAt: string; readonly durationMs: number; readonly exit: number; readonly status: TaskRunStatus }) => Effect.Effect<void, StateStoreError>
  /** Newest first; one task's runs when `alias` is given. */
  readonly history: (alias: string | undefined, limit: number) => Effect.Effect<ReadonlyArray<TaskRun>, StateStoreError>
}>() {}
