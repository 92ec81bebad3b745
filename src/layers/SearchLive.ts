import type Database from "better-sqlite3"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { Layer } from "effect"
import type { PathOverrides } from "../domain/Paths.js"
import { IndexStore } from "../services/IndexStore.js"
import { Redactor } from "../services/Redactor.js"
import { UsageLog } from "../services/UsageLog.js"
import { configuredWritable, WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { makeWorkspaceConfig, resolveWorkspacePaths } from "./fs/WorkspaceConfigFile.js"
import { betterSqliteAddon } from "./sqlite/addon.js"
import type { LazyConnection } from "./sqlite/connection.js"
import { LAST_INDEXED } from "./sqlite/index/query.js"
import { openIndexStoreConnection, type IndexStoreConnection } from "./sqlite/IndexStoreConnection.js"
import { migratedTo } from "./sqlite/migrationIds.js"
import { indexMigrations, stateMigrations } from "./sqlite/migrations.js"
import { redactorOn } from "./sqlite/redactor.js"
import { usageLogConnection } from "./sqlite/UsageLogConnection.js"
import { mayUsePostgres } from "./postgres/configured.js"

/**
 * The services `akm search` uses on its start-up fast path (src/cli/fast/search.ts,
 * docs/decisions/0002-start-up.md): IndexStore, UsageLog and Redactor on plain
 * better-sqlite3 connections (sqlite/IndexStoreConnection.ts,
 * sqlite/UsageLogConnection.ts, sqlite/redactor.ts) — the whole services, with
 * the statements the full CLI runs — and no @effect/sql client, no migrator,
 * no other service.
 * It serves only a workspace in its everyday state — both databases migrated
 * to this akm, index.db built once — and says so by returning undefined;
 * anything else (a first run, a newer database, an upgrade to migrate) is the
 * full CLI's, which builds, migrates or refuses as it always does. Opening
 * runs no Effect: the checks are plain statements, the layer holds services
 * already made.
 */
export interface SearchLive {
  readonly layer: Layer.Layer<IndexStore | UsageLog | Redactor | WorkspaceConfig>
  readonly close: () => void
  /** The plain connection to state.db the usage log runs on (the health fast path reads proposals on it too). */
  readonly state: LazyConnection
}

/** The index as search reads it; undefined unless index.db exists, is migrated and was built at least once. */
const openIndex = (filename: string, leaseFile: string, database: Database.Options, workspace: WorkspaceConfig["Type"]): IndexStoreConnection | undefined => {
  let index: IndexStoreConnection | undefined
  try {
    index = openIndexStoreConnection(filename, { leaseFile, database, writable: configuredWritable(workspace) })
    if (migratedTo(index.reader.rowsSync, indexMigrations) && index.reader.rowsSync(LAST_INDEXED).length > 0) return index
  } catch {
    // Not a database this path serves: the full CLI opens it and says what is wrong.
  }
  index?.close()
  return undefined
}

/**
 * Opens what a search needs, or returns undefined when the workspace is not
 * in the state this path serves. With `track` false (`--no-track`) state.db
 * is neither checked nor opened unless the usage log is asked something.
 */
/**
 * Whether config.yaml may configure `search.embeddings`: a hybrid search
 * (R-SRCH-4) is the full CLI's, so this path loads no embeddings code. A
 * plain look for the key, not a YAML parse: a false alarm only means the full
 * CLI answers.
 */
const mayEmbed = (configFile: string): boolean => {
  try {
    return /\bembeddings\s*:/.test(readFileSync(configFile, "utf8"))
  } catch {
    return false
  }
}

export const openSearchLive = (overrides: PathOverrides, track: boolean): SearchLive | undefined => {
  const paths = resolveWorkspacePaths(overrides)
  if (mayEmbed(paths.configFile) || mayUsePostgres(paths.configFile)) return undefined
  const addon = betterSqliteAddon()
  const database: Database.Options = addon === undefined ? {} : { nativeBinding: addon }
  const workspace = makeWorkspaceConfig(paths)
  const index = openIndex(paths.indexDb, path.join(paths.locksDir, "index.lock"), database, workspace)
  if (index === undefined) return undefined
  const usage = usageLogConnection(paths.stateDb, database)
  const close = () => {
    usage.connection.close()
    index.close()
  }
  if (track) {
    try {
      if (!migratedTo(usage.connection.open().rowsSync, stateMigrations)) throw new Error("state.db is not migrated to this akm")
    } catch {
      close()
      return undefined
    }
  }
  const layer = Layer.mergeAll(
    Layer.succeed(IndexStore, index.store),
    Layer.succeed(UsageLog, usage.log),
    // The stored digests are read on the usage log's connection (with --no-track, opened only if a key exists).
    Layer.succeed(Redactor, redactorOn(paths.stateDb, usage.connection.driver, workspace)),
    Layer.succeed(WorkspaceConfig, workspace)
  )
  return { layer, close, state: usage.connection }
}
