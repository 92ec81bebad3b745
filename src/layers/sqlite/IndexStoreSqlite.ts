import * as path from "node:path"
import { Effect, Layer } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { configuredWritable, WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { clientDriver } from "./clientDriver.js"
import { sqlFailure } from "./driver.js"
import { searchReader } from "./index/reader.js"
import { indexStoreOn } from "./index/store.js"
import { lazyDisposableDatabase } from "./LazyDatabase.js"
import { indexWriteLease } from "./indexLease.js"
import { indexMigrations } from "./migrations.js"

export interface IndexStoreOptions {
  /** The workspace index lease (R-IDX-6), `$DATA/locks/index.lock`; without it only this process is serialised. */
  readonly leaseFile?: string | undefined
  /** Configured writability by bundle, read per search (index/store.ts). */
  readonly writable?: Effect.Effect<ReadonlyMap<string, boolean>> | undefined
}

/**
 * index.db as the full CLI opens it: created and migrated on first use
 * through @effect/sql (Database.ts), written through that client, searched on
 * a plain connection of its own (index/reader.ts). The statements are
 * index/store.ts's, shared with the search fast path (IndexStoreConnection.ts).
 */
export const makeIndexStore = (filename: string, options: IndexStoreOptions = {}) =>
  Effect.gen(function* () {
    const db = yield* lazyDisposableDatabase({ filename, migrations: indexMigrations })
    const reader = yield* searchReader(filename, db, sqlFailure(filename))
    const lease = yield* Effect.makeSemaphore(1)
    const withWriteLease = indexWriteLease(lease, options.leaseFile)
    return indexStoreOn({ filename, writer: Effect.map(db, clientDriver), reader, withWriteLease, writable: options.writable })
  })

/** The workspace's index.db, with the index lease under `$DATA/locks`. */
export const IndexStoreSqlite = Layer.scoped(
  IndexStore,
  Effect.flatMap(WorkspaceConfig, (workspace) =>
    makeIndexStore(workspace.paths.indexDb, { leaseFile: path.join(workspace.paths.locksDir, "index.lock"), writable: configuredWritable(workspace) }))
)
