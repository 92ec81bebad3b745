import type * as PgClient from "@effect/sql-pg/PgClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { StateStoreError } from "../../services/StateStore.js"
import { isSafeToRetry, pgFailure, RETRY_SCHEDULE } from "./client.js"
import type { PgStateDb } from "./PgStateDb.js"

export interface PgRun {
  /** Statements outside a transaction; retried on connection loss (a read changes nothing). */
  readonly read: <A>(f: (sql: PgClient.PgClient) => Effect.Effect<A, SqlError>) => Effect.Effect<A, StateStoreError>
  /**
   * `f` in one transaction. Retried only when nothing can have been
   * committed (no connection was acquired) or the server rolled it back
   * (serialization failure, deadlock), so a write is never applied twice.
   */
  readonly write: <A, E = never>(f: (sql: PgClient.PgClient) => Effect.Effect<A, E>) => Effect.Effect<A, StateStoreError | Exclude<E, SqlError>>
}

const mapped = <E>(server: string) => (error: E): Exclude<E, SqlError> | ReturnType<ReturnType<typeof pgFailure>> =>
  error instanceof SqlError ? pgFailure(server)(error) : (error as Exclude<E, SqlError>)

/** How the Postgres stores reach the database: one place for transactions, retries and error mapping. */
export const pgRun = (db: PgStateDb["Type"]): PgRun => ({
  read: (f) =>
    Effect.flatMap(db.client, (sql) =>
      f(sql).pipe(
        Effect.retry({ while: (error) => isSafeToRetry(error, false), schedule: RETRY_SCHEDULE }),
        Effect.mapError(pgFailure(db.server))
      )),
  write: <A, E>(f: (sql: PgClient.PgClient) => Effect.Effect<A, E>) =>
    Effect.flatMap(db.client, (sql) =>
      sql.withTransaction(f(sql)).pipe(
        Effect.retry({ while: (error) => error instanceof SqlError && isSafeToRetry(error, true), schedule: RETRY_SCHEDULE }),
        Effect.mapError(mapped<E | SqlError>(db.server))
      ))
})

/**
 * pg returns int8 (identity ids, count(*)) as text, since its range exceeds a
 * JS number; akm's ids and counts stay far below 2^53.
 */
export type Int8 = string | number
export const int8 = (value: Int8): number => Number(value)

/** Serialises writers of one key for the rest of the transaction (released at COMMIT/ROLLBACK). */
export const xactLock = (sql: PgClient.PgClient, key: string) => sql`SELECT pg_advisory_xact_lock(hashtext(${key}))`
