import { SqlError } from "@effect/sql/SqlError"
import type Database from "better-sqlite3"
import { Effect, Exit } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { damagedDatabase, healAfterFailure, isDamage } from "./Heal.js"
import type { SqlText } from "./index/sqlText.js"

/**
 * The one way IndexStore and UsageLog statements reach SQLite
 * (index/store.ts, usage.ts): SqlText in, rows out. Two drivers run them — a
 * plain better-sqlite3 connection (this file: the search fast path and the
 * full CLI's search connection) and the @effect/sql client (clientDriver.ts:
 * `:memory:` and the connection the migrator opened) — so every statement is
 * written once (docs/architecture.md, "One data path").
 */
export interface SqlReader {
  /** Rows as objects. */
  readonly rows: <Row>(statement: SqlText) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  /** Rows as arrays of values, which better-sqlite3 builds in half the time for wide rows. */
  readonly values: (statement: SqlText) => Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>
}

export interface SqlDriver extends SqlReader {
  /** A statement that returns no rows. */
  readonly run: (statement: SqlText) => Effect.Effect<void, SqlError>
  /**
   * `f` inside BEGIN IMMEDIATE … COMMIT (ROLLBACK when it fails or is
   * interrupted): the writer takes the write lock up front and waits on
   * busy_timeout instead of failing on a lock upgrade. Statements of `f` go
   * through `tx`; inside a transaction this just runs `f`.
   */
  readonly immediate: <A, E, R>(f: (tx: SqlDriver) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
}

/** The message @effect/sql gives a failed statement, so errors read the same through either driver. */
export const statementFailed = (cause: unknown): SqlError => new SqlError({ cause, message: "Failed to execute statement" })

/**
 * Maps a failed statement to the workspace error a user sees (with the db's
 * path): a damaged index.db the layer registered as disposable is moved aside
 * for the next command to rebuild, a damaged state.db or logs.db is named with
 * what it holds and how to restore it (Heal.ts).
 */
export const sqlFailure = (filename: string) => (error: SqlError): WorkspaceUnavailable => {
  const healed = healAfterFailure(filename, error)
  if (healed !== undefined) return healed
  const index = filename.endsWith("index.db")
  if (!index && isDamage(error)) return damagedDatabase(filename, error.cause ?? error)
  return new WorkspaceUnavailable({
    path: filename,
    reason: `${error.message}: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}`,
    hint: index ? "index.db is disposable: delete it and run `akm index`" : "run `akm health`; if the problem stays, restore this file from a backup"
  })
}

/** SqlError to the store's error, anything else (a producer's own failure) kept. */
export const mapSqlError = <E, F>(fail: (error: SqlError) => F) => (error: E): Exclude<E, SqlError> | F =>
  error instanceof SqlError ? fail(error) : (error as Exclude<E, SqlError>)

export const BUSY_TIMEOUT_MS = 5_000
/** Statements differ by the number of parameters in their IN lists and multi-row inserts; a command uses a handful. */
const MAX_STATEMENTS = 256

/** A plain better-sqlite3 connection with its statements prepared once, and the same outside Effect. */
export interface Connection {
  readonly driver: SqlDriver
  /** Rows outside Effect; throws what better-sqlite3 throws. */
  readonly rowsSync: <Row>(statement: SqlText) => ReadonlyArray<Row>
  readonly close: () => void
}

/**
 * A driver over one better-sqlite3 connection. Its statements run
 * synchronously, so one never interleaves with another; a transaction spans
 * several, and while one is open the connection's other users wait for it
 * (a semaphore), as they would for @effect/sql's reserved connection.
 */
export const connectionDriver = (db: Database.Database): Connection => {
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
  const rowsSync = <Row>({ text, params }: SqlText) => prepared(text).raw(false).all(...params) as ReadonlyArray<Row>
  const valuesSync = ({ text, params }: SqlText) => prepared(text).raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
  const runSync = ({ text, params }: SqlText) => void prepared(text).run(...params)

  const direct: Omit<SqlDriver, "immediate"> = {
    rows: <Row>(statement: SqlText) => Effect.try({ try: () => rowsSync<Row>(statement), catch: statementFailed }),
    values: (statement) => Effect.try({ try: () => valuesSync(statement), catch: statementFailed }),
    run: (statement) => Effect.try({ try: () => runSync(statement), catch: statementFailed })
  }
  const lock = Effect.unsafeMakeSemaphore(1)
  let open = false
  /** Outside a transaction a statement runs at once; while one is open, after it. */
  const outside = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> => Effect.suspend(() => (open ? lock.withPermits(1)(effect) : effect))
  const exec = (text: string) => Effect.try({ try: () => void db.exec(text), catch: statementFailed })

  const inTransaction: SqlDriver = { ...direct, immediate: (f) => f(inTransaction) }
  const driver: SqlDriver = {
    rows: (statement) => outside(direct.rows(statement)),
    values: (statement) => outside(direct.values(statement)),
    run: (statement) => outside(direct.run(statement)),
    immediate: <A, E, R>(f: (tx: SqlDriver) => Effect.Effect<A, E, R>) =>
      lock.withPermits(1)(
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            yield* exec("BEGIN IMMEDIATE")
            open = true
            const exit = yield* Effect.exit(restore(f(inTransaction)))
            const ended = yield* Effect.exit(exec(Exit.isSuccess(exit) ? "COMMIT" : "ROLLBACK"))
            // A COMMIT that failed (busy past the timeout) leaves the transaction open: end it.
            if (db.inTransaction) yield* Effect.ignore(exec("ROLLBACK"))
            open = false
            if (Exit.isFailure(ended) && Exit.isSuccess(exit)) return yield* Effect.failCause(ended.cause)
            return yield* exit
          })
        )
      )
  }
  return { driver, rowsSync, close: () => db.close() }
}
