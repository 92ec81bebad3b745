import { Clock, Effect, Layer } from "effect"
import { LogStore, type LogLevel } from "../../services/LogStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { immediateTransaction } from "./Database.js"
import { lazyDatabase, sqlFailure } from "./LazyDatabase.js"
import { logsMigrations } from "./migrations.js"
import { databaseStatus } from "./status.js"

export const makeLogStore = (filename: string) =>
  Effect.gen(function* () {
    const db = yield* lazyDatabase({ filename, migrations: logsMigrations })
    const fail = sqlFailure(filename)
    return LogStore.of({
      init: Effect.flatMap(db, (sql) => databaseStatus(sql, filename).pipe(Effect.mapError(fail))),
      append: (run, level, message) =>
        Effect.flatMap(Effect.zip(db, Clock.currentTimeMillis), ([sql, now]) =>
          immediateTransaction(sql, sql`INSERT INTO lines (at, run, level, message) VALUES (${new Date(now).toISOString()}, ${run}, ${level}, ${message})`).pipe(
            Effect.asVoid,
            Effect.mapError(fail)
          )
        ),
      lines: (run, options = {}) =>
        Effect.flatMap(db, (sql) =>
          sql<{ id: number; at: string; run: string; level: LogLevel; message: string }>`SELECT * FROM lines WHERE run = ${run} ORDER BY id LIMIT ${options.limit ?? 10_000}`.pipe(
            Effect.mapError(fail)
          )
        ),
      purge: (days) =>
        Effect.flatMap(Effect.zip(db, Clock.currentTimeMillis), ([sql, now]) =>
          immediateTransaction(
            sql,
            sql<{ n: number }>`DELETE FROM lines WHERE at < ${new Date(now - days * 86_400_000).toISOString()} RETURNING 1 AS n`
          ).pipe(Effect.map((rows) => rows.length), Effect.mapError(fail))
        )
    })
  })

export const LogStoreSqlite = Layer.scoped(
  LogStore,
  Effect.flatMap(WorkspaceConfig, (workspace) => makeLogStore(workspace.paths.logsDb))
)

export const LogStoreMemory = Layer.scoped(LogStore, makeLogStore(":memory:"))
