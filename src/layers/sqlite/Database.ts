import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Migrator from "@effect/sql/Migrator"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { Data, Effect, ExecutionStrategy, Exit, Schedule, Scope } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { DatabaseTooNew, WorkspaceUnavailable } from "../../domain/Errors.js"
import { classify, isDamage, moveAside } from "./Heal.js"
import { immediateTransaction } from "./immediateTransaction.js"
import { migrationIds } from "./migrationIds.js"

export { immediateTransaction } from "./immediateTransaction.js"

/** Ordered migrations keyed "0001_name" (Migrator.fromRecord survives bundling; fromFileSystem does not). */
export type Migrations = Record<string, Effect.Effect<void, SqlError, SqlClient.SqlClient>>

export interface DatabaseSpec {
  readonly filename: string
  readonly migrations: Migrations
  /**
   * index.db: a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB) or one whose schema
   * does not take our migrations is moved aside and started afresh, and this is
   * told to the user (one line). Without it such a file is refused, naming what
   * it holds and how to restore it.
   */
  readonly disposable?: { readonly warn: (message: string) => Effect.Effect<void> } | undefined
}

const MIGRATIONS_TABLE = "akm_migrations"
const BUSY_TIMEOUT_MS = 5_000

/** A disposable db that cannot be used as it is: why, for the warning. */
class Unusable extends Data.TaggedError("Unusable")<{ readonly reason: string }> {}

/**
 * Opens one of the three databases (R-DB-1): WAL (set by the client),
 * busy_timeout and foreign keys (which the client leaves to us), then the
 * ordered migrations. A db recording migrations we do not know was written by
 * a newer akm and is refused before anything touches it. A damaged index.db is
 * moved aside and opened afresh (Heal.ts); no integrity check runs at start:
 * damage is what SQLite reports while opening and migrating.
 */
export const openDatabase = (spec: DatabaseSpec): Effect.Effect<SqlClient.SqlClient, WorkspaceUnavailable | DatabaseTooNew, Scope.Scope> => {
  const disposable = spec.disposable
  if (disposable === undefined || spec.filename === ":memory:") return Effect.catchTag(openOnce(spec), "Unusable", () => Effect.die("unreachable: only disposable dbs are unusable"))
  const attempt = Effect.gen(function* () {
    // The failed attempt's connection is closed before its file is moved.
    const scope = yield* Effect.scope
    const child = yield* Scope.fork(scope, ExecutionStrategy.sequential)
    return yield* Scope.extend(openOnce(spec), child).pipe(Effect.onError(() => Scope.close(child, Exit.void)))
  })
  return attempt.pipe(
    Effect.catchTag("Unusable", (unusable) =>
      Effect.gen(function* () {
        const movedTo = yield* moveAside(spec.filename, { probe: unusable.reason !== SCHEMA_MISMATCH })
        if (movedTo !== undefined) yield* disposable.warn(`warning: ${spec.filename} was unusable (${unusable.reason}); moved it to ${movedTo} and rebuilding the index`)
        return yield* Effect.catchTag(attempt, "Unusable", (again) => Effect.fail(new WorkspaceUnavailable({
          path: spec.filename,
          reason: again.reason,
          hint: "delete this file (it is rebuilt from the bundles) and run the command again"
        })))
      }))
  )
}

const SCHEMA_MISMATCH = "its tables do not match this akm"

const openOnce = (spec: DatabaseSpec): Effect.Effect<SqlClient.SqlClient, WorkspaceUnavailable | DatabaseTooNew | Unusable, Scope.Scope> =>
  Effect.gen(function* () {
    const plain = (cause: unknown) =>
      new WorkspaceUnavailable({
        path: spec.filename,
        reason: cause instanceof Error ? cause.message : String(cause),
        hint: "check that the directory exists and is writable; run `akm init`"
      })
    const disposable = spec.disposable !== undefined
    const unavailable = (cause: unknown): WorkspaceUnavailable | Unusable =>
      disposable && isDamage(cause) ? new Unusable({ reason: cause instanceof Error ? cause.message : String(cause) }) : classify(spec.filename, plain)(cause)
    // index.db is disposable and may be opened before `akm init` ran: its folder is created on demand.
    if (spec.filename !== ":memory:") yield* Effect.try({ try: () => mkdirSync(dirname(spec.filename), { recursive: true, mode: 0o700 }), catch: plain })
    const sql = yield* SqliteClient.make({ filename: spec.filename }).pipe(
      Effect.provide(Reactivity.layer),
      // better-sqlite3 throws while opening (missing directory, not a database): the workspace's fault, not a defect.
      Effect.catchAllDefect((defect) => Effect.fail(unavailable(defect))),
      // Switching a new file to WAL needs a moment of exclusive access and does not wait on
      // busy_timeout: a second process opening the same new db retries instead of failing.
      Effect.retry({ while: (error) => error._tag === "WorkspaceUnavailable" && /locked|busy/i.test(error.reason), schedule: Schedule.spaced("50 millis"), times: 100 })
    )
    yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).raw.pipe(Effect.mapError(unavailable))
    yield* sql.unsafe("PRAGMA foreign_keys = ON").raw.pipe(Effect.mapError(unavailable))
    yield* sql.unsafe("PRAGMA synchronous = NORMAL").raw.pipe(Effect.mapError(unavailable))
    // index.db: statement journals (every multi-row INSERT of a build opens one) and the build's
    // full-text staging table in memory, not in temporary files (docs/decisions/0050-index-build-speed.md).
    if (disposable) yield* sql.unsafe("PRAGMA temp_store = MEMORY").raw.pipe(Effect.mapError(unavailable))

    const known = migrationIds(spec.migrations)
    const recorded = yield* recordedMigrations(sql).pipe(Effect.mapError(unavailable))
    const unknown = recorded.migrations.filter((row) => !known.includes(row.id))
    if (unknown.length > 0) {
      return yield* new DatabaseTooNew({
        path: spec.filename,
        unknown: unknown.map((row) => `${String(row.id).padStart(4, "0")}_${row.name}`),
        hint: "upgrade akm, or move this file aside to start afresh (index.db can always be deleted)"
      })
    }
    // Tables but no migration history: some other program's database, or one that lost its history.
    if (disposable && recorded.migrations.length === 0 && recorded.tables > 0) return yield* new Unusable({ reason: SCHEMA_MISMATCH })
    if (recorded.migrations.length < known.length) {
      // Under BEGIN IMMEDIATE (the migrator's own transaction becomes a savepoint):
      // two processes opening a new workspace at once queue on busy_timeout
      // instead of failing on a lock upgrade; the second finds the work done.
      yield* immediateTransaction(sql, runMigrations(spec.migrations).pipe(Effect.provideService(SqlClient.SqlClient, sql))).pipe(
        Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 20, while: (error) => !isDamage(error) }),
        Effect.mapError((error) =>
          // A disposable db whose tables refuse our migrations is not ours to repair: it is started afresh.
          disposable && !/locked|busy/i.test(causeMessage(error)) ? new Unusable({ reason: isDamage(error) ? causeMessage(error) : SCHEMA_MISMATCH }) : unavailable(error)
        )
      )
    }
    return sql
  })

const causeMessage = (error: unknown): string => {
  const cause = (error as { readonly cause?: unknown } | null)?.cause
  return cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error)
}

/** The migrations a db records, and how many tables it has (to tell a fresh file from someone else's). */
const recordedMigrations = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const tables = yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
    if (!tables.some((table) => table.name === MIGRATIONS_TABLE)) return { tables: tables.length, migrations: [] as ReadonlyArray<{ id: number; name: string }> }
    const migrations = yield* sql<{ id: number; name: string }>`SELECT migration_id AS id, name FROM ${sql(MIGRATIONS_TABLE)} ORDER BY migration_id`
    return { tables: tables.length, migrations }
  })

const runMigrator = Migrator.make({})

const runMigrations = (migrations: Migrations) =>
  runMigrator({ loader: Migrator.fromRecord(migrations), table: MIGRATIONS_TABLE })
