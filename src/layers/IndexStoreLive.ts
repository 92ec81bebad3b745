import { Effect, Layer } from "effect"
import type { Credentials } from "../services/Credentials.js"
import type { IndexStore } from "../services/IndexStore.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { IndexStorePgLive } from "./postgres/IndexStorePgLive.js"
import { IndexStoreSqlite } from "./sqlite/IndexStoreSqlite.js"

type IndexStores = Layer.Layer<IndexStore, never, WorkspaceConfig | Credentials>

/**
 * The index on the backend config.yaml names (`storage.kind`, default sqlite):
 * index.db, or the team database's `idx_` tables (decisions 0033, 0034).
 * An unreadable config means sqlite here: the command itself reports the config error.
 */
export const IndexStoreLive = Layer.unwrapEffect(
  Effect.map(
    Effect.flatMap(WorkspaceConfig, (workspace) => Effect.orElseSucceed(Effect.map(workspace.read, (config) => config.storage?.kind ?? "sqlite"), () => "sqlite" as const)),
    (kind): IndexStores => (kind === "postgres" ? IndexStorePgLive : IndexStoreSqlite)
  )
)
