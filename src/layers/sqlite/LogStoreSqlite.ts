import { Effect, Layer } from "effect"
import { LogStore } from "../../services/LogStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { clientDriver } from "./clientDriver.js"
import { lazyDatabase } from "./LazyDatabase.js"
import { logStoreOn } from "./logs.js"
import { logsMigrations } from "./migrations.js"

/** LogStore on logs.db through its own @effect/sql client, opened (and migrated) on first use; logs.ts holds the statements. */
export const makeLogStore = (filename: string) =>
  Effect.map(lazyDatabase({ filename, migrations: logsMigrations }), (db) => logStoreOn(filename, Effect.map(db, clientDriver)))

export const LogStoreSqlite = Layer.scoped(
  LogStore,
  Effect.flatMap(WorkspaceConfig, (workspace) => makeLogStore(workspace.paths.logsDb))
)

export const LogStoreMemory = Layer.scoped(LogStore, makeLogStore(":memory:"))
