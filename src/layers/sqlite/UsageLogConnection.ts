import type Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import { UsageLog } from "../../services/UsageLog.js"
import { lazyConnection, type LazyConnection } from "./connection.js"
import { usageLogOn } from "./usage.js"

export interface UsageLogConnection {
  readonly log: UsageLog["Type"]
  readonly connection: LazyConnection
}

/**
 * UsageLog on a plain better-sqlite3 connection to an existing, migrated
 * state.db, opened on first use: usage.ts's statements as UsageLogSqlite
 * runs them, for the search fast path (layers/SearchLive.ts).
 */
export const usageLogConnection = (filename: string, options?: Database.Options): UsageLogConnection => {
  const connection = lazyConnection(filename, options)
  return { log: usageLogOn(filename, connection.driver), connection }
}

/** usageLogConnection as a layer, closed with its scope (tests). */
export const UsageLogConnectionLayer = (filename: string) =>
  Layer.scoped(
    UsageLog,
    Effect.map(
      Effect.acquireRelease(Effect.sync(() => usageLogConnection(filename)), (opened) => Effect.sync(opened.connection.close)),
      (opened) => opened.log
    )
  )
