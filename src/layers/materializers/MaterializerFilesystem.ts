import * as fs from "node:fs"
import { Effect } from "effect"
import { MaterializeFailed } from "../../services/Materializer.js"
import { resolveUserPath } from "../fs/WorkspaceConfigFile.js"
import type { MaterializerContext, SourceMaterializer } from "./SourceMaterializer.js"

/**
 * Filesystem sources are read in place: the root must be an existing
 * directory and its realpath is what gets recorded (spec 02 §2). Relative
 * paths in config.yaml are relative to the config file's directory. There is
 * no cache copy, so discard/prune/rename never touch the user's folder.
 */
export const makeFilesystemMaterializer = (ctx: Pick<MaterializerContext, "configDir">): SourceMaterializer<"filesystem"> => ({
  kind: "filesystem",
  cached: false,
  materialize: (bundle, source) =>
    Effect.try({
      try: () => {
        const resolved = resolveUserPath(source.path, ctx.configDir)
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
})
