import { FileSystem } from "@effect/platform/FileSystem"
import { Effect, Option } from "effect"
import { storageStatus } from "./storageStatus.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"

export interface InfoInput {
  readonly version: string
}

/**
 * Paths, versions and sizes; reads the config but never creates or opens a
 * SQLite database. With storage.kind postgres it asks the server its version.
 */
export const info = Effect.fn("info")(function* (input: InfoInput) {
  const workspace = yield* WorkspaceConfig
  const fs = yield* FileSystem
  const config = yield* workspace.read
  const size = (file: string) =>
    fs.stat(file).pipe(
      Effect.map((stat) => Number(stat.size)),
      Effect.option,
      Effect.map(Option.getOrNull)
    )
  const db = (file: string) => Effect.map(size(file), (bytes) => ({ path: file, exists: bytes !== null, bytes }))
  const { paths } = workspace
  return {
    version: input.version,
    node: process.versions.node,
    paths: {
      config: paths.configFile,
      configDir: paths.configDir,
      dataDir: paths.dataDir,
      cacheDir: paths.cacheDir,
      lock: paths.lockFile,
      sources: paths.sourcesDir,
      archive: paths.archiveDir
    },
    databases: {
      state: yield* db(paths.stateDb),
      index: yield* db(paths.indexDb),
      logs: yield* db(paths.logsDb)
    },
    storage: yield* storageStatus,
    bundles: Object.keys(config.bundles).length,
    defaultBundle: config.defaultBundle ?? null
  }
})

export type InfoResult = Effect.Effect.Success<ReturnType<typeof info>>
