import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Migrator from "@effect/sql/Migrator"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { Effect, Schedule, Scope } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { DatabaseTooNew, WorkspaceUnavailable } from "../../domain/Errors.js"
import { immediateTransaction } from "./immediateTransaction.js"
import { migrationIds } from "./migrationIds.js"

export { immediateTransaction } from "./immediateTransaction.js"

/** Ordered migrations keyed "0001_name" (Migrator.fromRecord survives bundling; fromFileSystem does not). */
export type Migrations = Record<string, Effect.Effect<void, SqlError, SqlClient.SqlClient>>

export interface DatabaseSpec {
  readonly filename: string
  readonly migrations: Migrations
}

const MIGRATIONS_TABLE = "akm_migrations"
const BUSY_TIMEOUT_MS = 5_000

/**
 * Opens one of the three databases (R-DB-1): WAL (set by the client),
 * busy_timeout and foreign keys (which the client leaves to us), then the
 * ordered migrations. A db recording migrations we do not know was written by
 * a newer akm and is refused before anything touches it.
 */
export const openDatabase = (spec: DatabaseSpec): Effect.Effect<SqlClient.SqlClient, WorkspaceUnavailable | DatabaseTooNew, Scope.Scope> =>
  Effect.gen(function* () {
    const unavailable = (cause: unknown) =>
      new WorkspaceUnavailable({
        path: spec.filename,
        reason: cause instanceof Error ? cause.message : String(cause),
        hint: "check that the directory exists and is writable; run `akm init`"
      })
    // index.db is disposable and may be opened before `akm init` ran: its folder is created on demand.
    if (spec.filename !== ":memory:") yield* Effect.try({ try: () => mkdirSync(dirname(spec.filename), { recursive: true, mode: 0o700 }), catch: unavailable })
    const sql = yield* SqliteClient.make({ filename: spec.filename }).pipe(
      Effect.provide(Reactivity.layer),
      // better-sqlite3 throws while opening (missing directory, not a database): the workspace's fault, not a defect.
      Effect.catchAllDefect((defect) => Effect.fail(unavailable(defect))),
      // Switching a new file to WAL needs a moment of exclusive access and does not wait on
      // busy_timeout: a second process opening the same new db retries instead of failing.
      Effect.retry({ while: (error) => /locked|busy/i.test(error.reason), schedule: Schedule.spaced("50 millis"), times: 100 })
    )
    yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).raw.pipe(Effect.mapError(unavailable))
    yield* sql.unsafe("PRAGMA foreign_keys = ON").raw.pipe(Effect.mapError(unavailable))
    yield* sql.unsafe("PRAGMA synchronous = NORMAL").raw.pipe(Effect.mapError(unavailable))

    const known = migrationIds(spec.migrations)
    const recorded = yield* recordedMigrations(sql).pipe(Effect.mapError(unavailable))
    const unknown = recorded.filter((row) => !known.includes(row.id))
    if (unknown.length > 0) {
      return yield* new DatabaseTooNew({
        path: spec.filename,
        unknown: unknown.map((row) => `${String(row.id).padStart(4, "0")}_${row.name}`),
        hint: "upgrade akm, or move this file aside to start afresh (index.db can always be deleted)"
      })
    }
    if (recorded.length < known.length) {
      // Under BEGIN IMMEDIATE (the migrator's own transaction becomes a savepoint):
      // two processes opening a new workspace at once queue on busy_timeout
      // instead of failing on a lock upgrade; the second finds the work done.
      yield* immediateTransaction(sql, runMigrations(spec.migrations).pipe(Effect.provideService(SqlClient.SqlClient, sql))).pipe(
        Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 20 }),
        Effect.mapError(unavailable)
      )
    }
    return sql
  })

const recordedMigrations = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const exists = yield* sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${MIGRATIONS_TABLE}`
    if ((exists[0]?.n ?? 0) === 0) return [] as ReadonlyArray<{ id: number; name: string }>
    return yield* sql<{ id: number; name: string }>`SELECT migration_id AS id, name FROM ${sql(MIGRATIONS_TABLE)} ORDER BY migration_id`
  })

const runMigrator = Migrator.make({})

const runMigrations = (migrations: Migrations) =>
  runMigrator({ loader: Migrator.fromRecord(migrations), table: MIGRATIONS_TABLE })
