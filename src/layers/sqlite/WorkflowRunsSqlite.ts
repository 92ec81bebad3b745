import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { RunRecord, RunStatus, StepState, StepStatus } from "../../domain/WorkflowRun.js"
import type { StateStoreError } from "../../services/StateStore.js"
import { WorkflowRuns } from "../../services/WorkflowRuns.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { withLease } from "../fs/transaction/Lease.js"
import { immediateTransaction } from "./Database.js"
import { sqlFailure } from "./LazyDatabase.js"
import { workspaceLease } from "./leaseEvents.js"
import { makeStateDb, StateDb } from "./StateDb.js"

interface RunRow {
  readonly id: string
  readonly workflow: string
  readonly status: string
  readonly frozen: string
  readonly frozen_hash: string
  readonly message: string | null
  readonly created_at: string
  readonly updated_at: string
}

interface StepRow {
  readonly run_id: string
  readonly idx: number
  readonly step_id: string
  readonly status: string
  readonly attempts: number
  readonly exit_code: number | null
  readonly summary: string | null
  readonly started_at: string | null
  readonly finished_at: string | null
  readonly pid: number | null
}

const toStep = (row: StepRow): StepState => ({
  index: row.idx,
  id: row.step_id,
  status: row.status as StepStatus,
  attempts: row.attempts,
  ...(row.exit_code === null ? {} : { exitCode: row.exit_code }),
  ...(row.summary === null ? {} : { summary: row.summary }),
  ...(row.started_at === null ? {} : { startedAt: row.started_at }),
  ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
  ...(row.pid === null ? {} : { pid: row.pid })
})

const toRun = (row: RunRow, steps: ReadonlyArray<StepRow>): RunRecord => ({
  id: row.id,
  workflow: row.workflow,
  status: row.status as RunStatus,
  frozen: row.frozen,
  frozenHash: row.frozen_hash,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...(row.message === null ? {} : { message: row.message }),
  steps: steps.filter((s) => s.run_id === row.id).map(toStep)
})

/** A run never driven for this long is not held by a live process any more, whatever its pid says. */
const MAX_AGE_MILLIS = 7 * 86_400_000

/** WorkflowRuns over a state.db connection (migration 0009_workflow_runs); leases in `locksDir`. */
export const workflowRunsFrom = (stateDb: StateDb["Type"], locksDir: string) => {
  const fail = sqlFailure(stateDb.filename)
  const write = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> =>
    Effect.flatMap(stateDb.client, (sql) => immediateTransaction(sql, f(sql)).pipe(Effect.mapError(fail)))
  const read = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> =>
    Effect.flatMap(stateDb.client, (sql) => f(sql).pipe(Effect.mapError(fail)))
  return WorkflowRuns.of({
    create: (run, stepIds) =>
      write((sql) =>
        Effect.gen(function* () {
          yield* sql`INSERT INTO workflow_runs ${sql.insert({
            id: run.id,
            workflow: run.workflow,
            status: run.status,
            frozen: run.frozen,
            frozen_hash: run.frozenHash,
            message: run.message ?? null,
            created_at: run.createdAt,
            updated_at: run.updatedAt
          })}`
          for (const [idx, stepId] of stepIds.entries()) {
            yield* sql`INSERT INTO workflow_steps ${sql.insert({ run_id: run.id, idx, step_id: stepId, status: "pending", attempts: 0 })}`
          }
        })),
    get: (id) =>
      read((sql) =>
        Effect.gen(function* () {
          const [row] = yield* sql<RunRow>`SELECT * FROM workflow_runs WHERE id = ${id}`
          if (row === undefined) return undefined
          return toRun(row, yield* sql<StepRow>`SELECT * FROM workflow_steps WHERE run_id = ${id} ORDER BY idx`)
        })),
    list: (limit) =>
      read((sql) =>
        Effect.gen(function* () {
          const rows = yield* sql<RunRow>`SELECT * FROM workflow_runs ORDER BY created_at DESC, id DESC LIMIT ${Math.max(1, Math.floor(limit))}`
          if (rows.length === 0) return []
          const steps = yield* sql<StepRow>`SELECT * FROM workflow_steps WHERE ${sql.in("run_id", rows.map((r) => r.id))} ORDER BY run_id, idx`
          return rows.map((row) => toRun(row, steps))
        })),
    setStatus: (id, status, message, at) =>
      write((sql) => sql`UPDATE workflow_runs SET status = ${status}, message = ${message ?? null}, updated_at = ${at} WHERE id = ${id}`).pipe(Effect.asVoid),
    updateStep: (id, index, update, at) =>
      write((sql) =>
        Effect.gen(function* () {
          const [row] = yield* sql<StepRow>`SELECT * FROM workflow_steps WHERE run_id = ${id} AND idx = ${index}`
          if (row === undefined) return
          const has = (key: keyof StepUpdateKeys) => Object.prototype.hasOwnProperty.call(update, key)
          yield* sql`UPDATE workflow_steps SET
            status = ${update.status ?? row.status},
            attempts = ${row.attempts + (update.addAttempt === true ? 1 : 0)},
            exit_code = ${has("exitCode") ? update.exitCode ?? null : row.exit_code},
            summary = ${has("summary") ? update.summary ?? null : row.summary},
            started_at = ${has("startedAt") ? update.startedAt ?? null : row.started_at},
            finished_at = ${has("finishedAt") ? update.finishedAt ?? null : row.finished_at},
            pid = ${has("pid") ? update.pid ?? null : row.pid}
            WHERE run_id = ${id} AND idx = ${index}`
          yield* sql`UPDATE workflow_runs SET updated_at = ${at} WHERE id = ${id}`
        })),
    exclusive: (id, effect) =>
      withLease(workspaceLease(path.join(locksDir, `workflow-${id}.lock`), `workflow run ${id}`, { waitMillis: 0, maxAgeMillis: MAX_AGE_MILLIS }))(effect)
  })
}

type StepUpdateKeys = { exitCode: unknown; summary: unknown; startedAt: unknown; finishedAt: unknown; pid: unknown }

/** Needs StateDb (StateDbLive in AkmLive) and WorkspaceConfig (for the lease directory). */
export const WorkflowRunsSqlite = Layer.effect(
  WorkflowRuns,
  Effect.gen(function* () {
    const stateDb = yield* StateDb
    const workspace = yield* WorkspaceConfig
    return workflowRunsFrom(stateDb, workspace.paths.locksDir)
  })
)

/** Runs in an in-memory state.db, leases in `locksDir`, for tests. */
export const workflowRunsMemory = (locksDir: string) => Layer.scoped(WorkflowRuns, Effect.map(makeStateDb(":memory:"), (db) => workflowRunsFrom(db, locksDir)))
