import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import type { BundleSource } from "../../domain/Config.js"
import { Materializer, MaterializeFailed, SourceKindUnsupported } from "../../services/Materializer.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { resolveUserPath } from "./WorkspaceConfigFile.js"
import * as path from "node:path"

/**
 * Filesystem sources are read in place: the root must be an existing
 * directory and its realpath is what gets recorded (spec 02 §2). Relative
 * paths in config.yaml are relative to the config file's directory.
 */
export const makeFilesystemMaterializer = (configDir: string) =>
  Materializer.of({
    materialize: (bundle: string, source: BundleSource) => {
      if (source.kind !== "filesystem") {
        return Effect.fail(new SourceKindUnsupported({ kind: source.kind, hint: "this akm installs local folders only; git, npm and website sources arrive in a later release" }))
      }
      return Effect.try({
        try: () => {
          const resolved = resolveUserPath(source.path, configDir)
          const root = fs.realpathSync(resolved)
          if (!fs.statSync(root).isDirectory()) throw new Error(`${resolved} is not a directory`)
          return { root, revision: null, locator: source.path }
        },
        catch: (cause) =>
          new MaterializeFailed({
            bundle,
            source: source.path,
            reason: (cause as NodeJS.ErrnoException).code === "ENOENT" ? "the folder does not exist" : String((cause as Error).message ?? cause),
            hint: "check the path (relative paths on the command line are resolved from the current directory, in config.yaml from its folder)"
          })
      })
    },
    // A filesystem bundle is the user's own folder: there is no cache copy to delete.
    discard: () => Effect.void
  })

export const MaterializerLive = Layer.effect(
  Materializer,
  Effect.map(WorkspaceConfig, (workspace) => makeFilesystemMaterializer(path.dirname(workspace.paths.configFile)))
)
