import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import { DatabaseTooNew } from "../../domain/Errors.js"
import { migrationIds } from "../sqlite/migrationIds.js"

/** One migration history in the team database: the state stores' (akm_state_migrations) or the index's (akm_index_migrations). */
export interface PgMigrationHistory {
  /** The history table @effect/sql's Migrator records in. */
  readonly table: string
  readonly migrations: Record<string, Effect.Effect<void, SqlError, SqlClient.SqlClient>>
  /** The text whose `hashtext` is the advisory lock migrations of this history serialise on. */
  readonly lock: string
  /** What a refusal names: the server, or the index on it. */
  readonly label: string
  /** What a refusal tells the operator to do. */
  readonly hint: string
}

/**
 * Migrates one history, in one transaction under a transaction-scoped advisory
 * lock: servers starting together queue instead of racing to create the
 * history table (the Migrator's own table check would abort the transaction),
 * and a database recording a migration this akm does not know is refused
 * (`DatabaseTooNew`, R-DB-1) before anything runs. Yields the recorded
 * migrations as `NNNN_name`, after migrating. A migration's failed statement
 * is a defect in the Migrator (orDieWith); it comes back here as the
 * statement's SqlError, named by migration, so callers report it as they do
 * any database error (a lost connection as unreachable) instead of a crash.
 */
export const migrateHistory = (history: PgMigrationHistory): Effect.Effect<ReadonlyArray<string>, SqlError | Migrator.MigrationError | DatabaseTooNew, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const recorded = sql<{ id: number; name: string }>`SELECT migration_id AS id, name FROM ${sql(history.table)} ORDER BY migration_id`
    const named = (rows: ReadonlyArray<{ id: number; name: string }>) => rows.map((row) => `${String(row.id).padStart(4, "0")}_${row.name}`)
    return sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${history.lock}))`
        yield* sql`CREATE TABLE IF NOT EXISTS ${sql(history.table)} (
          migration_id integer PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), name text NOT NULL)`
        const before = yield* recorded
        const known = migrationIds(history.migrations)
        const unknown = before.filter((row) => !known.includes(row.id))
        if (unknown.length > 0) return yield* new DatabaseTooNew({ path: history.label, unknown: named(unknown), hint: history.hint })
        if (before.length >= known.length) return named(before)
        yield* Migrator.make({})({ loader: Migrator.fromRecord(history.migrations), table: history.table })
        return named(yield* recorded)
      })
    ).pipe(Effect.catchSomeDefect((defect) =>
      defect instanceof Migrator.MigrationError && defect.cause instanceof SqlError
        ? Option.some(Effect.fail(new SqlError({ cause: defect.cause.cause, message: `${defect.message}: ${defect.cause.message}` })))
        : Option.none()))
  })
