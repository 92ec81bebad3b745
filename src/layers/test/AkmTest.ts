import * as NodeContext from "@effect/platform-node/NodeContext"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { AdaptersPlaceholder } from "../fs/AdaptersPlaceholder.js"
import { MaterializerLive } from "../fs/MaterializerFilesystem.js"
import { ProgressSilent } from "../fs/ProgressTerminal.js"
import { makeWorkspaceConfig } from "../fs/WorkspaceConfigFile.js"
import { IndexStoreMemory } from "../memory/IndexStoreMemory.js"
import { LogStoreMemory } from "../sqlite/LogStoreSqlite.js"
import { StateStoreMemory } from "../sqlite/StateStoreSqlite.js"
import { workspacePaths } from "../../domain/Paths.js"

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

/** The service graph for tests: temp workspace, in-memory databases and index, silent progress. */
export const AkmTest = Layer.mergeAll(StateStoreMemory, LogStoreMemory, IndexStoreMemory, MaterializerLive, AdaptersPlaceholder, ProgressSilent).pipe(
  Layer.provideMerge(WorkspaceConfigTemp),
  Layer.provideMerge(NodeContext.layer)
)
