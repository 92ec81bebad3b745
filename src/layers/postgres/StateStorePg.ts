import { Clock, Effect, Layer } from "effect"
import { StateStore, type DatabaseStatus } from "../../services/StateStore.js"
import { insertEvent } from "./events.js"
import { STATE_MIGRATIONS_TABLE } from "./migrations.js"
import { int8, pgRun, type Int8 } from "./pgRun.js"
import { PgStateDb } from "./PgStateDb.js"

interface EventRow {
  readonly id: Int8
  readonly at: string
  readonly kind: string
  readonly subject: string
  readonly data: string | null
}

/** Applied migrations of the state-side schema; integrity is the server's business, so a query that answers is "ok". */
export const pgDatabaseStatus = (db: PgStateDb["Type"]) =>
  pgRun(db).read((sql) =>
    Effect.map(
      sql<{ id: number; name: string }>`SELECT migration_id AS id, name FROM ${sql(STATE_MIGRATIONS_TABLE)} ORDER BY migration_id`,
      (rows): DatabaseStatus => ({ path: db.server, migrations: rows.map((m) => `${String(m.id).padStart(4, "0")}_${m.name}`), integrity: "ok" })
    ))

/** StateStore on PostgreSQL (the events of state.db); needs PgStateDb. */
export const StateStorePg = Layer.effect(
  StateStore,
  Effect.gen(function* () {
    const db = yield* PgStateDb
    const run = pgRun(db)
    return StateStore.of({
      init: pgDatabaseStatus(db),
      appendEvent: (kind, subject, data) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          run.write((sql) => insertEvent(sql, new Date(now).toISOString(), kind, subject, data === undefined ? null : JSON.stringify(data)))),
      events: ({ after = 0, limit = 100, subject }) =>
        run.read((sql) =>
          Effect.map(
            subject === undefined
              ? sql<EventRow>`SELECT id, at, kind, subject, data FROM events WHERE id > ${after} ORDER BY id LIMIT ${limit}`
              : sql<EventRow>`SELECT id, at, kind, subject, data FROM events WHERE id > ${after} AND subject = ${subject} ORDER BY id LIMIT ${limit}`,
            (rows) => rows.map((row) => ({ ...row, id: int8(row.id), data: row.data === null ? undefined : (JSON.parse(row.data) as unknown) }))
          )),
      renameBundle: (from, to) =>
        run.write((sql) =>
          // PostgreSQL counts characters, as SQLite does; JS .length would count UTF-16 units.
          sql`UPDATE events SET subject = ${to} || substr(subject, length(${from}) + 1)
            WHERE subject = ${from} OR starts_with(subject, ${`${from}//`})`.pipe(Effect.asVoid))
    })
  })
)
