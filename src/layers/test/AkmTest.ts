import * as NodeContext from "@effect/platform-node/NodeContext"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { BundleFiles } from "../../services/BundleFiles.js"
import type { IndexStore } from "../../services/IndexStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { AdaptersBuiltIn } from "../adapters/registry.js"
import { BundleFilesNode } from "../fs/BundleFilesNode.js"
import { FileStampsNode } from "../fs/FileStampsNode.js"
import { GitHistoryIsomorphic } from "../git/GitHistoryIsomorphic.js"
import { MaterializerLive } from "../materializers/MaterializerLive.js"
import { ProgressSilent } from "../fs/ProgressTerminal.js"
import { CrashPointsNone } from "../fs/transaction/CrashPoints.js"
import { TransactionEngineLive } from "../fs/TransactionEngine.js"
import { TransactionJournalsLive } from "../fs/TransactionJournalsLive.js"
import { makeWorkspaceConfig } from "../fs/WorkspaceConfigFile.js"
import { IndexStoreMiniSearch } from "../memory/IndexStoreMiniSearch.js"
import { ChangeValidatorIndexed } from "../validation/ChangeValidatorIndexed.js"
import { ItemProjectorInProcess } from "../projector/ItemProjectorWorkers.js"
import { EvidenceStoreSqlite } from "../sqlite/EvidenceStoreSqlite.js"
import { LogStoreMemory } from "../sqlite/LogStoreSqlite.js"
import { ProposalStoreSqlite } from "../sqlite/ProposalStoreSqlite.js"
import { RedactorSqlite } from "../sqlite/RedactorSqlite.js"
import { BindingsSqlite } from "../sqlite/BindingsSqlite.js"
import { TaskStoreSqlite } from "../sqlite/TaskStoreSqlite.js"
import { crontabFile } from "../runtime/CrontabFile.js"
import { makeCrontabLive } from "../runtime/CrontabLive.js"
import { EnvFilesNode } from "../fs/EnvFilesNode.js"
import { ChildProcessNode } from "../process/ChildProcessNode.js"
import { CredentialsLive } from "../runtime/CredentialsLive.js"
import { StateDbMemory } from "../sqlite/StateDb.js"
import { StateStoreSqlite } from "../sqlite/StateStoreSqlite.js"
import { MemoryStoreSqlite } from "../sqlite/MemoryStoreSqlite.js"
import { MemoryArchiveNode } from "../fs/MemoryArchiveNode.js"
import { UsageLogSqlite } from "../sqlite/UsageLogSqlite.js"
import { TokenizerGpt } from "../tokenizer/TokenizerGpt.js"
import { workspacePaths } from "../../domain/Paths.js"
import { ImproveStoreSqlite } from "../sqlite/ImproveStoreSqlite.js"
import { SandboxIndexMiniSearch } from "../memory/SandboxIndexMiniSearch.js"

/** A workspace in a fresh temp directory, removed when the layer's scope closes. */
export const WorkspaceConfigTemp = Layer.scoped(
  WorkspaceConfig,
  Effect.acquireRelease(
    Effect.sync(() => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "akm-ws-"))
      const paths = workspacePaths({}, root, path.join, {
        configDir: path.join(root, "config"),
        dataDir: path.join(root, "data"),
        cacheDir: path.join(root, "cache")
      })
      return { root, workspace: makeWorkspaceConfig(paths) }
    }),
    ({ root }) => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))
  ).pipe(Effect.map(({ workspace }) => workspace))
)

/**
 * The service graph for tests over an index store of their choice (the
 * validator and the engine share it with the programs): temp workspace,
 * in-memory databases, in-process projection, silent progress, the real
 * adapters and file access.
 */
export const akmTestWith = <E>(index: Layer.Layer<IndexStore, E, WorkspaceConfig>, files: Layer.Layer<BundleFiles, never, WorkspaceConfig> = BundleFilesNode) => Layer.mergeAll(StateStoreSqlite, UsageLogSqlite, RedactorSqlite, ProposalStoreSqlite, EvidenceStoreSqlite, TokenizerGpt, LogStoreMemory, MaterializerLive, TransactionEngineLive, TransactionJournalsLive, GitHistoryIsomorphic, ItemProjectorInProcess, ImproveStoreSqlite, SandboxIndexMiniSearch, BindingsSqlite, ChildProcessNode, TaskStoreSqlite, MemoryStoreSqlite, MemoryArchiveNode).pipe(
  // Never the real crontab: without runtime.crontabFile, a file in the temp workspace.
  Layer.provideMerge(makeCrontabLive((paths) => crontabFile(path.join(paths.configDir, "crontab")))),
  Layer.provideMerge(CredentialsLive),
  Layer.provideMerge(EnvFilesNode),
  Layer.provideMerge(ChangeValidatorIndexed),
  Layer.provideMerge(index),
  Layer.provideMerge(ProgressSilent),
  Layer.provideMerge(AdaptersBuiltIn),
  Layer.provideMerge(CrashPointsNone),
  Layer.provideMerge(FileStampsNode),
  Layer.provideMerge(files),
  Layer.provideMerge(StateDbMemory),
  Layer.provideMerge(WorkspaceConfigTemp),
  Layer.provideMerge(NodeContext.layer)
)

/** The service graph for tests with the in-memory index. */
export const AkmTest = akmTestWith(IndexStoreMiniSearch)
