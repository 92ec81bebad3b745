import { Effect } from "effect"
import { IndexStore } from "../services/IndexStore.js"
import { LogStore } from "../services/LogStore.js"
import { StateStore } from "../services/StateStore.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"

/** Creates the workspace directories and the three databases; running it again changes nothing. */
export const init = Effect.fn("init")(function* () {
  const workspace = yield* WorkspaceConfig
  yield* workspace.ensureDirs
  const created = (yield* workspace.readText) === undefined
  if (created) yield* workspace.update(() => undefined)
  const state = yield* (yield* StateStore).init
  const logs = yield* (yield* LogStore).init
  const index = yield* (yield* IndexStore).init
  return {
    configFile: workspace.paths.configFile,
    configCreated: created,
    dataDir: workspace.paths.dataDir,
    cacheDir: workspace.paths.cacheDir,
    databases: { state, logs, index }
  }
})

export type InitResult = Effect.Effect.Success<ReturnType<typeof init>>
