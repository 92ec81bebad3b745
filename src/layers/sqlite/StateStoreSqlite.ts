import { Clock, Effect, Layer } from "effect"
import { StateStore, type DatabaseStatus, type StateStoreError } from "../../services/StateStore.js"
import { immediateTransaction } from "./Database.js"
import { sqlFailure } from "./LazyDatabase.js"
import { makeStateDb, StateDb } from "./StateDb.js"
import { databaseStatus } from "./status.js"

/** StateStore over the shared state.db connection. */
export const stateStoreFrom = (stateDb: StateDb["Type"]) =>
  Effect.sync(() => {
    const db = stateDb.client
    const filename = stateDb.filename
    const fail = sqlFailure(filename)

    const init: Effect.Effect<DatabaseStatus, StateStoreError> = Effect.flatMap(db, (sql) => databaseStatus(sql, filename).pipe(Effect.mapError(fail)))

    return StateStore.of({
      init,
      appendEvent: (kind, subject, data) =>
        Effect.flatMap(Effect.zip(db, Clock.currentTimeMillis), ([sql, now]) =>
          immediateTransaction(
            sql,
            sql<{ id: number }>`INSERT INTO events (at, kind, subject, data) VALUES (${new Date(now).toISOString()}, ${kind}, ${subject}, ${data === undefined ? null : JSON.stringify(data)}) RETURNING id`
          ).pipe(Effect.map((rows) => rows[0]!.id), Effect.mapError(fail))
        ),
      events: ({ after = 0, limit = 100, subject }) =>
        Effect.flatMap(db, (sql) =>
          (subject === undefined
            ? sql<{ id: number; at: string; kind: string; subject: string; data: string | null }>`SELECT * FROM events WHERE id > ${after} ORDER BY id LIMIT ${limit}`
            : sql<{ id: number; at: string; kind: string; subject: string; data: string | null }>`SELECT * FROM events WHERE id > ${after} AND subject = ${subject} ORDER BY id LIMIT ${limit}`
          ).pipe(
            Effect.map((rows) => rows.map((row) => ({ ...row, data: row.data === null ? undefined : (JSON.parse(row.data) as unknown) }))),
            Effect.mapError(fail)
          )
        ),
      renameBundle: (from, to) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            // SQLite measures the name itself: substr counts characters, JS .length counts UTF-16 units.
            sql`UPDATE events SET subject = ${to} || substr(subject, length(${from}) + 1)
              WHERE subject = ${from} OR substr(subject, 1, length(${from}) + 2) = ${`${from}//`}`
          ).pipe(Effect.asVoid, Effect.mapError(fail))
        )
    })
  })

/** A StateStore with its own state.db connection (tests, tools). */
export const makeStateStore = (filename: string) => Effect.flatMap(makeStateDb(filename), stateStoreFrom)

/** Needs StateDb (StateDbLive in AkmLive). */
export const StateStoreSqlite = Layer.effect(StateStore, Effect.flatMap(StateDb, stateStoreFrom))

/** state.db in memory, for tests. */
export const StateStoreMemory = Layer.scoped(StateStore, makeStateStore(":memory:"))
