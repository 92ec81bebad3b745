import { existsSync } from "node:fs"
import { Layer } from "effect"
import type { PathOverrides } from "../domain/Paths.js"
import { IndexStore } from "../services/IndexStore.js"
import { resolveWorkspacePaths } from "./fs/WorkspaceConfigFile.js"
import { betterSqliteAddon } from "./sqlite/addon.js"
import { openIndexStoreConnection } from "./sqlite/IndexStoreConnection.js"

/**
 * The one service `akm __complete` reads (shell completion,
 * docs/decisions/0015-completions.md): IndexStore on a plain connection to
 * the workspace's index.db (sqlite/IndexStoreConnection.ts), as the search
 * fast path opens it — no config read, no migration, no other database.
 * Undefined when there is no index.db: completion then offers no bundle or
 * ref, and creates nothing. The connection is not opened `readonly`: a
 * read-only connection cannot remove the -wal and -shm files SQLite makes on
 * opening, and would leave them behind; completion only runs IndexStore's
 * reads (bundles, browse).
 */
export interface CompletionLive {
  readonly layer: Layer.Layer<IndexStore>
  readonly close: () => void
}

export const openCompletionLive = (overrides: PathOverrides): CompletionLive | undefined => {
  const paths = resolveWorkspacePaths(overrides)
  if (!existsSync(paths.indexDb)) return undefined
  const addon = betterSqliteAddon()
  try {
    const index = openIndexStoreConnection(paths.indexDb, { database: addon === undefined ? {} : { nativeBinding: addon } })
    return { layer: Layer.succeed(IndexStore, index.store), close: index.close }
  } catch {
    // Not a database akm can read: nothing to offer.
    return undefined
  }
}
