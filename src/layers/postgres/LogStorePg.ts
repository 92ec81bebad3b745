import { Clock, Effect, Layer } from "effect"
import { LogStore, type LogLevel } from "../../services/LogStore.js"
import { int8, pgRun, type Int8 } from "./pgRun.js"
import { PgStateDb } from "./PgStateDb.js"
import { pgDatabaseStatus } from "./StateStorePg.js"

/** LogStore on PostgreSQL: logs.db's lines as the table log_lines of the state-side database; needs PgStateDb. */
export const LogStorePg = Layer.effect(
  LogStore,
  Effect.gen(function* () {
    const db = yield* PgStateDb
    const run = pgRun(db)
    return LogStore.of({
      init: pgDatabaseStatus(db),
      append: (runId, level, message) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          run.write((sql) => sql`INSERT INTO log_lines (at, run, level, message) VALUES (${new Date(now).toISOString()}, ${runId}, ${level}, ${message})`.pipe(Effect.asVoid))),
      lines: (runId, options = {}) =>
        run.read((sql) =>
          Effect.map(
            sql<{ id: Int8; at: string; run: string; level: LogLevel; message: string }>`SELECT id, at, run, level, message FROM log_lines
              WHERE run = ${runId} ORDER BY id LIMIT ${options.limit ?? 10_000}`,
            (rows) => rows.map((row) => ({ ...row, id: int8(row.id) }))
          )),
      purge: (days) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          run.write((sql) =>
            Effect.map(
              sql<{ n: Int8 }>`WITH purged AS (DELETE FROM log_lines WHERE at < ${new Date(now - days * 86_400_000).toISOString()} RETURNING 1)
                SELECT count(*) AS n FROM purged`,
              (rows) => int8(rows[0]?.n ?? 0)
            )))
    })
  })
)
