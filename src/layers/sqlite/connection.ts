import type Database from "better-sqlite3"
import { Effect } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import type { Connection, SqlDriver } from "./driver.js"
import { openConnection } from "./index/reader.js"

/** A plain connection to an existing database, opened on first use (or at once with `open`). */
export interface LazyConnection {
  /** The connection, opened now if it was not; throws what better-sqlite3 throws. */
  readonly open: () => Connection
  /** Its driver, opening it on first use. */
  readonly driver: Effect.Effect<SqlDriver, WorkspaceUnavailable>
  readonly close: () => void
}

export const lazyConnection = (filename: string, options: Database.Options = {}): LazyConnection => {
  let connection: Connection | undefined
  const open = (): Connection => (connection ??= openConnection(filename, options))
  return {
    open,
    driver: Effect.suspend(() =>
      connection !== undefined
        ? Effect.succeed(connection.driver)
        : Effect.try({
          try: () => open().driver,
          catch: (cause) =>
            new WorkspaceUnavailable({
              path: filename,
              reason: cause instanceof Error ? cause.message : String(cause),
              hint: "run `akm info`, which creates and migrates the workspace databases"
            })
        })),
    close: () => {
      connection?.close()
      connection = undefined
    }
  }
}
