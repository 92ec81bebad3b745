/**
 * Every live layer of the service graph (spec 09 §5), so an embedding program
 * can rebuild AkmLive (src/layers/AkmLive.ts) or swap any one piece: its own
 * IndexStore, a state.db in memory, a silent Progress.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"

/** Node's FileSystem, Path, CommandExecutor and Terminal, at the bottom of the graph. */
export const NodeContextLive = NodeContext.layer
export { AkmLive, makeAkmLive, type AkmLiveOptions } from "./AkmLive.js"
export { AdaptersBuiltIn, makeAdapters } from "./adapters/registry.js"
export { BundleFilesNode, makeBundleFiles } from "./fs/BundleFilesNode.js"
export { ProgressSilent, ProgressStderr, makeProgress } from "./fs/ProgressTerminal.js"
export { CrashPointsNone } from "./fs/transaction/CrashPoints.js"
export { TransactionEngineLive, makeTransactionEngine } from "./fs/TransactionEngine.js"
export { WorkspaceConfigLive, makeWorkspaceConfig } from "./fs/WorkspaceConfigFile.js"
export { GitHistoryIsomorphic } from "./git/GitHistoryIsomorphic.js"
export { FileStampsNode } from "./fs/FileStampsNode.js"
export { GitSyncIsomorphic } from "./git/GitSyncIsomorphic.js"
export { MaterializerLive } from "./materializers/MaterializerLive.js"
export { IndexStoreMiniSearch } from "./memory/IndexStoreMiniSearch.js"
export { ItemProjectorInProcess, ItemProjectorWorkers } from "./projector/ItemProjectorWorkers.js"
export { IndexStoreSqlite } from "./sqlite/IndexStoreSqlite.js"
export { LogStoreMemory, LogStoreSqlite } from "./sqlite/LogStoreSqlite.js"
export { ProposalStoreSqlite, makeProposalStore } from "./sqlite/ProposalStoreSqlite.js"
export { RedactorSqlite } from "./sqlite/RedactorSqlite.js"
export { StateDb, StateDbLive, StateDbMemory, makeStateDb } from "./sqlite/StateDb.js"
export { StateStoreMemory, StateStoreSqlite } from "./sqlite/StateStoreSqlite.js"
export { UsageLogSqlite, makeUsageLog } from "./sqlite/UsageLogSqlite.js"
export { TokenizerGpt, makeTokenizer } from "./tokenizer/TokenizerGpt.js"
export { ChangeValidatorIndexed, makeChangeValidator } from "./validation/ChangeValidatorIndexed.js"
export { AkmTest, WorkspaceConfigTemp } from "./test/AkmTest.js"
export { MemoryStoreMemory, MemoryStoreSqlite } from "./sqlite/MemoryStoreSqlite.js"
export { MemoryArchiveNode, memoryArchiveAt } from "./fs/MemoryArchiveNode.js"
export { MemoryArchiveMemory } from "./memory/MemoryArchiveMemory.js"
// Team mode (docs/team.md): the state-side stores on PostgreSQL, and the layer that picks a backend from storage.kind.
export { StateStoresLive } from "./StateStoresLive.js"
export { PgStateDb, PgStateDbLive, pgStateDbAt } from "./postgres/PgStateDb.js"
export { StateStorePg } from "./postgres/StateStorePg.js"
export { UsageLogPg } from "./postgres/UsageLogPg.js"
export { ProposalStorePg } from "./postgres/ProposalStorePg.js"
export { LogStorePg } from "./postgres/LogStorePg.js"
export { EvidenceStorePg } from "./postgres/EvidenceStorePg.js"
export { StorageBackendPg } from "./postgres/StorageBackendPg.js"
export { StorageBackendSqlite } from "./sqlite/StorageBackendSqlite.js"
export { IndexStoreLive } from "./IndexStoreLive.js"
export { IndexStorePgLive, IndexStorePgOnStateDb } from "./postgres/IndexStorePgLive.js"
export { IndexStorePg, makeIndexStorePgLayer } from "./postgres/IndexStorePg.js"
// Request-path work yields to the event loop every few ms (issue 28 item 4, docs/decisions/0048-event-loop-stalls.md).
export { EventLoopSlices, slicedScheduler } from "./runtime/EventLoopSlices.js"
