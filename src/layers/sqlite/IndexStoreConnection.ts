import type Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { lazyConnection } from "./connection.js"
import type { Connection } from "./driver.js"
import { indexStoreOn } from "./index/store.js"
import { indexWriteLease } from "./indexLease.js"

export interface IndexStoreConnection {
  readonly store: IndexStore["Type"]
  /** The search connection, open: for checks outside Effect (layers/SearchLive.ts). */
  readonly reader: Connection
  readonly close: () => void
}

/**
 * IndexStore on plain better-sqlite3 connections to an existing, migrated
 * index.db — no @effect/sql, no migrator — for the search fast path
 * (layers/SearchLive.ts, docs/decisions/0002-start-up.md). The whole service,
 * with index/store.ts's statements as IndexStoreSqlite runs them: search
 * reads on the connection opened here (it throws when it cannot), writes on
 * a second one opened on the first write, so a search never sees a write
 * still in its transaction.
 */
export const openIndexStoreConnection = (
  filename: string,
  options: {
    readonly leaseFile?: string | undefined
    readonly database?: Database.Options | undefined
    /** Configured writability by bundle, read per search (index/store.ts). */
    readonly writable?: Effect.Effect<ReadonlyMap<string, boolean>> | undefined
  } = {}
): IndexStoreConnection => {
  const reader = lazyConnection(filename, options.database).open()
  const writer = lazyConnection(filename, options.database)
  const lease = Effect.unsafeMakeSemaphore(1)
  const withWriteLease = indexWriteLease(lease, options.leaseFile)
  const store = indexStoreOn({ filename, writer: writer.driver, reader: Effect.succeed(reader.driver), withWriteLease, writable: options.writable })
  return {
    store,
    reader,
    close: () => {
      writer.close()
      reader.close()
    }
  }
}

/** openIndexStoreConnection as a layer, closed with its scope (tests). */
export const IndexStoreConnectionLayer = (filename: string, options?: Parameters<typeof openIndexStoreConnection>[1]) =>
  Layer.scoped(
    IndexStore,
    Effect.map(
      Effect.acquireRelease(Effect.sync(() => openIndexStoreConnection(filename, options)), (opened) => Effect.sync(opened.close)),
      (opened) => opened.store
    )
  )
