import { Effect } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleView } from "./view.js"

/** Every configured bundle in config order, with its lock entry and item count. */
export const bundleList = Effect.fn("bundle.list")(function* () {
  const workspace = yield* WorkspaceConfig
  const index = yield* IndexStore
  const config = yield* workspace.read
  const lock = yield* workspace.readLock
  const counts = Object.keys(config.bundles).length === 0 ? {} : yield* index.counts
  return {
    bundles: Object.entries(config.bundles).map(([name, bundle]) => bundleView(name, bundle, lock.bundles[name], counts[name] ?? 0, config.defaultBundle)),
    defaultBundle: config.defaultBundle ?? null
  }
})
