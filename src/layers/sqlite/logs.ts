import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../../domain/Errors.js"
import { LogStore, type LogLevel } from "../../services/LogStore.js"
import { sqlFailure, type SqlDriver } from "./driver.js"
import { sql } from "./index/sqlText.js"
import { databaseStatusOn } from "./status.js"

/**
 * LogStore's statements over logs.db (migration 0001 of logsMigrations), the
 * one place they are written: the full CLI runs them on its @effect/sql client
 * (LogStoreSqlite.ts), the health fast path on a plain connection
 * (layers/HealthLive.ts).
 */
export const logStoreOn = (filename: string, driver: Effect.Effect<SqlDriver, WorkspaceUnavailable | DatabaseTooNew>): LogStore["Type"] => {
  const fail = sqlFailure(filename)
  const read = <A>(f: (db: SqlDriver) => Effect.Effect<A, SqlError>) => Effect.flatMap(driver, (db) => Effect.mapError(f(db), fail))
  const write = <A>(f: (db: SqlDriver) => Effect.Effect<A, SqlError>) => read((db) => db.immediate(f))
  return LogStore.of({
    init: read((db) => databaseStatusOn(db, filename)),
    append: (run, level, message) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        write((db) => db.run(sql`INSERT INTO lines (at, run, level, message) VALUES (${new Date(now).toISOString()}, ${run}, ${level}, ${message})`))),
    lines: (run, options = {}) =>
      read((db) => db.rows<{ id: number; at: string; run: string; level: LogLevel; message: string }>(sql`SELECT * FROM lines WHERE run = ${run} ORDER BY id LIMIT ${options.limit ?? 10_000}`)),
    purge: (days) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        write((db) => Effect.map(db.rows<{ n: number }>(sql`DELETE FROM lines WHERE at < ${new Date(now - days * 86_400_000).toISOString()} RETURNING 1 AS n`), (rows) => rows.length)))
  })
}
