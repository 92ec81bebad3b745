import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import type { FileSystem } from "@effect/platform/FileSystem"
import * as fs from "node:fs"
import { Layer } from "effect"
import type { PathOverrides } from "../domain/Paths.js"
import { IndexStore } from "../services/IndexStore.js"
import { LogStore } from "../services/LogStore.js"
import { ProposalStore } from "../services/ProposalStore.js"
import type { TransactionJournals } from "../services/TransactionJournals.js"
import type { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { resolveWorkspacePaths } from "./fs/WorkspaceConfigFile.js"
import { TransactionJournalsLive } from "./fs/TransactionJournalsLive.js"
import { openSearchLive } from "./SearchLive.js"
import { betterSqliteAddon } from "./sqlite/addon.js"
import { lazyConnection, type LazyConnection } from "./sqlite/connection.js"
import { logStoreOn } from "./sqlite/logs.js"
import { migratedTo } from "./sqlite/migrationIds.js"
import { logsMigrations } from "./sqlite/migrations.js"
import { proposalStoreOn } from "./sqlite/proposals.js"

/**
 * The services `akm health` reads on its start-up fast path (cli/fast/health.ts,
 * docs/decisions/0013-fast-read-commands.md): SearchLive's IndexStore and
 * WorkspaceConfig, ProposalStore and LogStore on plain better-sqlite3
 * connections (sqlite/proposals.ts, sqlite/logs.ts: the statements the full
 * CLI runs on @effect/sql), the journal check without the engine
 * (TransactionJournalsLive) and the file system. Like SearchLive it serves
 * only a workspace in its everyday state — index.db built, state.db and an
 * existing logs.db migrated to exactly this akm — and returns undefined
 * otherwise, for the full CLI to migrate, repair or report.
 */
export interface HealthLive {
  readonly layer: Layer.Layer<IndexStore | WorkspaceConfig | ProposalStore | LogStore | TransactionJournals | FileSystem>
  readonly close: () => void
}

/** logs.db on a plain connection when it exists and is migrated to this akm; "absent" when it does not exist; undefined otherwise. */
const openLogs = (filename: string): LazyConnection | "absent" | undefined => {
  if (!fs.existsSync(filename)) return "absent"
  const addon = betterSqliteAddon()
  const connection = lazyConnection(filename, addon === undefined ? {} : { nativeBinding: addon })
  try {
    if (migratedTo(connection.open().rowsSync, logsMigrations)) return connection
  } catch {
    // Damaged or locked: the full CLI reports it.
  }
  connection.close()
  return undefined
}

export const openHealthLive = (overrides: PathOverrides): HealthLive | undefined => {
  const paths = resolveWorkspacePaths(overrides)
  const logs = openLogs(paths.logsDb)
  if (logs === undefined) return undefined
  // With tracking on, SearchLive checks state.db is migrated to this akm: pending proposals are read there.
  const search = openSearchLive(overrides, true)
  if (search === undefined) {
    if (logs !== "absent") logs.close()
    return undefined
  }
  // health reads logs.db only when the file exists (a connection never opened is never used).
  const logsConnection = logs === "absent" ? lazyConnection(paths.logsDb) : logs
  const layer = Layer.mergeAll(
    Layer.succeed(ProposalStore, proposalStoreOn(paths.stateDb, search.state.driver)),
    Layer.succeed(LogStore, logStoreOn(paths.logsDb, logsConnection.driver)),
    TransactionJournalsLive,
    NodeFileSystem.layer
  ).pipe(Layer.provideMerge(search.layer))
  const close = () => {
    logsConnection.close()
    search.close()
  }
  return { layer, close }
}
