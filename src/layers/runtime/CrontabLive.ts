import { Effect, Layer } from "effect"
import * as os from "node:os"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { expandUserPath, type WorkspacePaths } from "../../domain/Paths.js"
import { Crontab } from "../../services/Crontab.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { crontabFile } from "./CrontabFile.js"
import { crontabProgram } from "./CrontabProgram.js"

/**
 * The scheduler table as config.yaml says: `runtime.crontabFile` makes akm
 * edit that plain file (a relative path is taken from the config dir);
 * without it, the user's crontab through the `crontab` program. Config is
 * read per call, so building the layer costs nothing. Tests pass a fallback
 * (a file in the temp workspace) so nothing ever reaches the real crontab.
 */
export const makeCrontabLive = (fallback: (paths: WorkspacePaths) => Crontab["Type"] = () => crontabProgram()) => Layer.effect(
  Crontab,
  Effect.map(WorkspaceConfig, (workspace) => {
    // An unreadable config stops here: falling back to the user's crontab could write where the config said not to.
    const chosen = workspace.read.pipe(
      Effect.mapError((e) => new WorkspaceUnavailable({ path: workspace.paths.configFile, reason: e.message, hint: "fix config.yaml (see `akm config`), then try again" })),
      Effect.map((config) => {
        const file = config.runtime?.crontabFile
        return file === undefined ? fallback(workspace.paths) : crontabFile(expandUserPath(file, workspace.paths.configDir, os.homedir()))
      })
    )
    return Crontab.of({
      where: Effect.flatMap(chosen, (c) => c.where),
      read: Effect.flatMap(chosen, (c) => c.read),
      replace: (expected, next) => Effect.flatMap(chosen, (c) => c.replace(expected, next))
    })
  })
)

export const CrontabLive = makeCrontabLive()
