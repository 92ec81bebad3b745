import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import Database from "better-sqlite3"
import { Effect, Scope } from "effect"
import type { SearchSql } from "./query.js"
import type { SqlText } from "./sqlText.js"

/**
 * Search's own connection to index.db: plain better-sqlite3 with its prepared
 * statements kept, no @effect/sql in between. A search issues five or six
 * short statements, and building, compiling and tracing each through
 * @effect/sql cost as much as running it (docs/decisions/0002-start-up.md).
 * It only reads: in WAL mode it sees every committed write of the store's
 * main connection, and never blocks it.
 */
export interface IndexReader {
  readonly sql: SearchSql
  /** Rows outside Effect; throws what better-sqlite3 throws. */
  readonly rows: <Row>(statement: SqlText) => ReadonlyArray<Row>
  readonly close: () => void
}

const BUSY_TIMEOUT_MS = 5_000
/** Statements differ by the number of parameters in their IN lists; a search uses a handful. */
const MAX_STATEMENTS = 256

/** Opens an existing index.db for searching; throws when it cannot (no file, not a database). */
export const openIndexReader = (filename: string, options: Database.Options = {}): IndexReader => {
  const db = new Database(filename, { ...options, fileMustExist: true })
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  const statements = new Map<string, Database.Statement>()
  const prepared = (text: string): Database.Statement => {
    let statement = statements.get(text)
    if (statement === undefined) {
      if (statements.size >= MAX_STATEMENTS) statements.clear()
      statement = db.prepare(text)
      statements.set(text, statement)
    }
    return statement
  }
  const rows = <Row>({ text, params }: SqlText) => prepared(text).raw(false).all(...params) as ReadonlyArray<Row>
  const values = ({ text, params }: SqlText) => prepared(text).raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
  // The message @effect/sql gives a failed statement, so errors read the same on both paths.
  const failed = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })
  return {
    sql: {
      rows: <Row>(statement: SqlText) => Effect.try({ try: () => rows<Row>(statement), catch: failed }),
      values: (statement) => Effect.try({ try: () => values(statement), catch: failed })
    },
    rows,
    close: () => db.close()
  }
}

/** The same statements through the store's SqlClient: for `:memory:`, which a second connection would not share. */
export const onClient = (client: SqlClient.SqlClient): SearchSql => ({
  rows: <Row>({ text, params }: SqlText) => client.unsafe<Row & object>(text, params) as Effect.Effect<ReadonlyArray<Row>, SqlError>,
  values: ({ text, params }) => client.unsafe(text, params).values
})

/**
 * How IndexStoreSqlite runs its search statements: on an IndexReader opened
 * once `db` has opened (and migrated) index.db and closed with the layer's
 * scope, or on the store's client for `:memory:`. Failures become the
 * store's errors through `fail`.
 */
export const searchRunner = <E>(filename: string, db: Effect.Effect<SqlClient.SqlClient, E>, fail: (error: SqlError) => E) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const open = (client: SqlClient.SqlClient): Effect.Effect<SearchSql, E> =>
      filename === ":memory:"
        ? Effect.succeed(onClient(client))
        : Scope.extend(
          Effect.acquireRelease(
            Effect.try({ try: () => openIndexReader(filename), catch: (cause) => fail(new SqlError({ cause, message: "Failed to open the search connection" })) }),
            (reader) => Effect.sync(reader.close)
          ),
          scope
        ).pipe(Effect.map((reader) => reader.sql))
    const runner = yield* Effect.cached(Effect.flatMap(db, open))
    // Once open, statements skip the cached effect: awaiting it re-applies the opening's fiber-ref patch
    // every time, several microseconds on each of a search's statements.
    let opened: SearchSql | undefined
    const current = Effect.suspend(() => (opened !== undefined ? Effect.succeed(opened) : Effect.tap(runner, (sql) => {
      opened = sql
    })))
    return <A>(f: (sql: SearchSql) => Effect.Effect<A, SqlError>): Effect.Effect<A, E> =>
      Effect.flatMap(current, (sql) => Effect.mapError(f(sql), fail))
  })
