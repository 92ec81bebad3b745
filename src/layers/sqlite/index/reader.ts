import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import Database from "better-sqlite3"
import { Effect, Scope } from "effect"
import { clientDriver } from "../clientDriver.js"
import { BUSY_TIMEOUT_MS, connectionDriver, type Connection, type SqlReader } from "../driver.js"

/**
 * A plain better-sqlite3 connection to an existing database, statements
 * prepared once and no @effect/sql in between: a search issues five or six
 * short statements, and building, compiling and tracing each through
 * @effect/sql cost as much as running it (docs/decisions/0002-start-up.md).
 * Throws when it cannot open (no file, not a database).
 */
export const openConnection = (filename: string, options: Database.Options = {}): Connection => {
  const db = new Database(filename, { ...options, fileMustExist: true })
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    db.pragma("foreign_keys = ON")
    db.pragma("synchronous = NORMAL")
  } catch (error) {
    db.close()
    throw error
  }
  return connectionDriver(db)
}

/**
 * How IndexStoreSqlite reads for search: on a connection of its own, opened
 * once `db` has opened (and migrated) index.db and closed with the layer's
 * scope — in WAL mode it sees every committed write of the store's main
 * connection and never blocks it — or on the store's client for `:memory:`,
 * which a second connection would not share. Failures to open become the
 * store's errors through `fail`.
 */
export const searchReader = <E>(filename: string, db: Effect.Effect<SqlClient.SqlClient, E>, fail: (error: SqlError) => E) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const open = (client: SqlClient.SqlClient): Effect.Effect<SqlReader, E> =>
      filename === ":memory:"
        ? Effect.succeed(clientDriver(client))
        : Scope.extend(
          Effect.acquireRelease(
            Effect.try({ try: () => openConnection(filename), catch: (cause) => fail(new SqlError({ cause, message: "Failed to open the search connection" })) }),
            (connection) => Effect.sync(connection.close)
          ),
          scope
        ).pipe(Effect.map((connection) => connection.driver))
    const opening = yield* Effect.cached(Effect.flatMap(db, open))
    // Once open, statements skip the cached effect: awaiting it re-applies the opening's fiber-ref patch
    // every time, several microseconds on each of a search's statements.
    let opened: SqlReader | undefined
    return Effect.suspend(() => (opened !== undefined ? Effect.succeed(opened) : Effect.tap(opening, (reader) => {
      opened = reader
    })))
  })
