import * as NodeContext from "@effect/platform-node/NodeContext"
import { Layer } from "effect"
import type { PathOverrides } from "../domain/Paths.js"
import type { CrashPoints } from "../services/CrashPoints.js"
import { AdaptersBuiltIn } from "./adapters/registry.js"
import { BundleFilesNode } from "./fs/BundleFilesNode.js"
import { FileStampsNode } from "./fs/FileStampsNode.js"
import { GitHistoryIsomorphic } from "./git/GitHistoryIsomorphic.js"
import { GitSyncIsomorphic } from "./git/GitSyncIsomorphic.js"
import { MaterializerLive } from "./materializers/MaterializerLive.js"
import { ItemProjectorWorkers } from "./projector/ItemProjectorWorkers.js"
import { ProgressStderr } from "./fs/ProgressTerminal.js"
import { CrashPointsNone } from "./fs/transaction/CrashPoints.js"
import { EmbeddingsLive } from "./embeddings/EmbeddingsLive.js"
import { TransactionEngineLive } from "./fs/TransactionEngine.js"
import { TransactionJournalsLive } from "./fs/TransactionJournalsLive.js"
import { WorkspaceConfigLive } from "./fs/WorkspaceConfigFile.js"
import { ChangeValidatorIndexed } from "./validation/ChangeValidatorIndexed.js"
import { RedactorSqlite } from "./sqlite/RedactorSqlite.js"
import { StateDbLive } from "./sqlite/StateDb.js"
import { BundleWriteLockLive } from "./BundleWriteLockLive.js"
import { IndexStoreLive } from "./IndexStoreLive.js"
import { StateStoresLive } from "./StateStoresLive.js"
import { StateTransferPg } from "./postgres/StateTransferPg.js"
import { ImproveStoreSqlite } from "./sqlite/ImproveStoreSqlite.js"
import { SandboxIndexMiniSearch } from "./memory/SandboxIndexMiniSearch.js"
import { TokenizerGpt } from "./tokenizer/TokenizerGpt.js"
import { BindingsSqlite } from "./sqlite/BindingsSqlite.js"
import { EnvFilesNode } from "./fs/EnvFilesNode.js"
import { ChildProcessNode } from "./process/ChildProcessNode.js"
import { CredentialsLive } from "./runtime/CredentialsLive.js"
import { CrontabLive } from "./runtime/CrontabLive.js"
import { TaskStoreSqlite } from "./sqlite/TaskStoreSqlite.js"
import { StepProcessNode } from "./process/StepProcessNode.js"
import { WorkflowRunsSqlite } from "./sqlite/WorkflowRunsSqlite.js"
import { MemoryStoreSqlite } from "./sqlite/MemoryStoreSqlite.js"
import { MemoryArchiveNode } from "./fs/MemoryArchiveNode.js"
import { EventLoopSlices } from "./runtime/EventLoopSlices.js"

export interface AkmLiveOptions extends PathOverrides {
  readonly quiet?: boolean | undefined
  /**
   * The projector worker script (dist/cli/projector-worker.cjs): with it, large
   * bundles are scanned on worker threads; without it, in-process.
   */
  readonly projectorWorker?: string | undefined
  /**
   * The transaction engine's fault-injecting seam; the shipped CLI leaves it
   * out (no-op points). Only a test entry point passes another layer.
   */
  readonly crashPoints?: Layer.Layer<CrashPoints> | undefined
}

/**
 * The whole service graph as the CLI runs it. Databases open on first use, so
 * building this layer costs no I/O; an embedding program swaps any piece with
 * Layer.provide / Layer.merge.
 */
export const makeAkmLive = (options: AkmLiveOptions = {}) =>
  Layer.mergeAll(
    // StateStore, UsageLog, ProposalStore, LogStore, EvidenceStore (+ StorageBackend): SQLite, or PostgreSQL when storage.kind says so.
    StateStoresLive,
    // `akm storage migrate`: state.db into the PostgreSQL database of storage.url (connects only when run).
    StateTransferPg,
    RedactorSqlite,
    TokenizerGpt,
    MaterializerLive,
    TransactionEngineLive,
    TransactionJournalsLive,
    GitHistoryIsomorphic,
    ItemProjectorWorkers({ script: options.projectorWorker }),
    ImproveStoreSqlite,
    SandboxIndexMiniSearch,
    // Hybrid search (R-SRCH-4): inert unless config search.embeddings is set.
    EmbeddingsLive,
    BindingsSqlite,
    ChildProcessNode,
    TaskStoreSqlite,
    GitSyncIsomorphic,
    WorkflowRunsSqlite,
    StepProcessNode,
    // The memory lifecycle (spec 06 §8): archive metadata in state.db, bytes under $DATA/archive.
    MemoryStoreSqlite,
    MemoryArchiveNode,
    // Request-path work lets the event loop turn every few ms (issue 28 item 4, decision 0048).
    EventLoopSlices
  ).pipe(
    // Tasks (spec 07 §3): the scheduler table config.yaml names (runtime.crontabFile), else the user's crontab.
    Layer.provideMerge(CrontabLive),
    // The engine and the proposal evaluation validate through the index (ChangeValidator).
    Layer.provideMerge(ChangeValidatorIndexed),
    // index.db, or the team database when storage.kind is postgres (decision 0034).
    Layer.provideMerge(IndexStoreLive),
    // The engine's cross-server bundle write lock when storage.kind is postgres (docs/decisions/0033).
    Layer.provideMerge(BundleWriteLockLive),
    // Runtime (spec 07): credentials read secret files through EnvFiles; the team database's URL resolves through them.
    Layer.provideMerge(CredentialsLive),
    Layer.provideMerge(EnvFilesNode),
    Layer.provideMerge(ProgressStderr(options.quiet ?? false)),
    Layer.provideMerge(AdaptersBuiltIn),
    Layer.provideMerge(options.crashPoints ?? CrashPointsNone),
    Layer.provideMerge(FileStampsNode),
    Layer.provideMerge(BundleFilesNode),
    Layer.provideMerge(StateDbLive),
    Layer.provideMerge(WorkspaceConfigLive(options)),
    Layer.provideMerge(NodeContext.layer)
  )

export const AkmLive = makeAkmLive()
