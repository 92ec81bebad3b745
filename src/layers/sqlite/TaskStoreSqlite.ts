import { Effect, Layer } from "effect"
import { TaskStore, type TaskRecord, type TaskRun, type TaskRunStatus } from "../../services/TaskStore.js"
import { immediateTransaction } from "./Database.js"
import { sqlFailure } from "./LazyDatabase.js"
import { makeStateDb, StateDb } from "./StateDb.js"

interface TaskRow {
  readonly alias: string
  readonly export_ref: string
  readonly digest: string
  readonly schedule: string
  readonly enabled: number
  readonly updated_at: string
}

interface RunRow {
  readonly id: number
  readonly alias: string
  readonly export_ref: string
  readonly digest: string
  readonly trigger: string
  readonly target: string
  readonly started_at: string
  readonly finished_at: string | null
  readonly duration_ms: number | null
  readonly exit: number | null
  readonly status: string
}

const toRecord = (row: TaskRow): TaskRecord => ({ alias: row.alias, exportRef: row.export_ref, digest: row.digest, schedule: row.schedule, enabled: row.enabled === 1, updatedAt: row.updated_at })

const toRun = (row: RunRow): TaskRun => ({
  id: row.id,
  alias: row.alias,
  exportRef: row.export_ref,
  digest: row.digest,
  trigger: row.trigger === "scheduled" ? "scheduled" : "manual",
  target: row.target,
  startedAt: row.started_at,
  ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
  ...(row.duration_ms === null ? {} : { durationMs: row.duration_ms }),
  ...(row.exit === null ? {} : { exit: row.exit }),
  status: row.status as TaskRunStatus
})

/** TaskStore over the shared state.db connection (migration 0010_tasks). */
export const taskStoreFrom = (stateDb: StateDb["Type"]) =>
  Effect.sync(() => {
    const db = stateDb.client
    const fail = sqlFailure(stateDb.filename)
    return TaskStore.of({
      put: (r) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            sql`INSERT INTO tasks (alias, export_ref, digest, schedule, enabled, updated_at) VALUES (${r.alias}, ${r.exportRef}, ${r.digest}, ${r.schedule}, ${r.enabled ? 1 : 0}, ${r.updatedAt})
              ON CONFLICT (alias) DO UPDATE SET export_ref = excluded.export_ref, digest = excluded.digest, schedule = excluded.schedule, enabled = excluded.enabled, updated_at = excluded.updated_at`
          ).pipe(Effect.asVoid, Effect.mapError(fail))
        ),
      get: (alias) =>
        Effect.flatMap(db, (sql) => sql<TaskRow>`SELECT * FROM tasks WHERE alias = ${alias}`.pipe(Effect.map((rows) => (rows[0] === undefined ? undefined : toRecord(rows[0]))), Effect.mapError(fail))),
      list: Effect.flatMap(db, (sql) => sql<TaskRow>`SELECT * FROM tasks ORDER BY alias`.pipe(Effect.map((rows) => rows.map(toRecord)), Effect.mapError(fail))),
      startRun: (run) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            sql<{ id: number }>`INSERT INTO task_runs (alias, export_ref, digest, trigger, target, started_at, status)
              VALUES (${run.alias}, ${run.exportRef}, ${run.digest}, ${run.trigger}, ${run.target}, ${run.startedAt}, 'running') RETURNING id`
          ).pipe(Effect.map((rows) => rows[0]!.id), Effect.mapError(fail))
        ),
      finishRun: (id, o) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            sql`UPDATE task_runs SET finished_at = ${o.finishedAt}, duration_ms = ${o.durationMs}, exit = ${o.exit}, status = ${o.status} WHERE id = ${id}`
          ).pipe(Effect.asVoid, Effect.mapError(fail))
        ),
      history: (alias, limit) =>
        Effect.flatMap(db, (sql) =>
          (alias === undefined
            ? sql<RunRow>`SELECT * FROM task_runs ORDER BY id DESC LIMIT ${limit}`
            : sql<RunRow>`SELECT * FROM task_runs WHERE alias = ${alias} ORDER BY id DESC LIMIT ${limit}`
          ).pipe(Effect.map((rows) => rows.map(toRun)), Effect.mapError(fail))
        )
    })
  })

/** Needs StateDb (StateDbLive in AkmLive). */
export const TaskStoreSqlite = Layer.effect(TaskStore, Effect.flatMap(StateDb, taskStoreFrom))

/** Tasks in an in-memory state.db, for tests. */
export const TaskStoreMemory = Layer.scoped(TaskStore, Effect.flatMap(makeStateDb(":memory:"), taskStoreFrom))
