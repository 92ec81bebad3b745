import { Effect, Layer } from "effect"
import type { Credentials } from "../services/Credentials.js"
import type { EvidenceStore } from "../services/EvidenceStore.js"
import type { LogStore } from "../services/LogStore.js"
import type { ProposalStore } from "../services/ProposalStore.js"
import type { StateStore } from "../services/StateStore.js"
import type { StorageBackend } from "../services/StorageBackend.js"
import type { UsageLog } from "../services/UsageLog.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { EvidenceStorePg } from "./postgres/EvidenceStorePg.js"
import { LogStorePg } from "./postgres/LogStorePg.js"
import { PgStateDbLive } from "./postgres/PgStateDb.js"
import { ProposalStorePg } from "./postgres/ProposalStorePg.js"
import { StateStorePg } from "./postgres/StateStorePg.js"
import { StorageBackendPg } from "./postgres/StorageBackendPg.js"
import { UsageLogPg } from "./postgres/UsageLogPg.js"
import { EvidenceStoreSqlite } from "./sqlite/EvidenceStoreSqlite.js"
import { LogStoreSqlite } from "./sqlite/LogStoreSqlite.js"
import { ProposalStoreSqlite } from "./sqlite/ProposalStoreSqlite.js"
import { StateStoreSqlite } from "./sqlite/StateStoreSqlite.js"
import { StorageBackendSqlite } from "./sqlite/StorageBackendSqlite.js"
import type { StateDb } from "./sqlite/StateDb.js"
import { UsageLogSqlite } from "./sqlite/UsageLogSqlite.js"

type StateStores = Layer.Layer<StateStore | UsageLog | ProposalStore | LogStore | EvidenceStore | StorageBackend, never, WorkspaceConfig | StateDb | Credentials>

const sqlite = Layer.mergeAll(StateStoreSqlite, UsageLogSqlite, ProposalStoreSqlite, LogStoreSqlite, EvidenceStoreSqlite, StorageBackendSqlite)

// The layers build no connection: PgStateDb connects on first use, so `akm config …` works while the server is down.
// IndexStoreLive and BundleWriteLockLive provide this same PgStateDbLive value: memoised, one pool per process (decision 0042).
const postgres = Layer.mergeAll(StateStorePg, UsageLogPg, ProposalStorePg, LogStorePg, EvidenceStorePg, StorageBackendPg).pipe(Layer.provide(PgStateDbLive))

/**
 * StateStore, UsageLog, ProposalStore, LogStore and EvidenceStore on the backend config.yaml
 * names (`storage.kind`, default sqlite; docs/decisions/0033-postgres-state-layers.md).
 * An unreadable config means sqlite here: the command itself reports the config error.
 */
export const StateStoresLive = Layer.unwrapEffect(
  Effect.map(
    Effect.flatMap(WorkspaceConfig, (workspace) => Effect.orElseSucceed(Effect.map(workspace.read, (config) => config.storage?.kind ?? "sqlite"), () => "sqlite" as const)),
    (kind): StateStores => (kind === "postgres" ? postgres : sqlite)
  )
)
