import { Effect } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleView } from "./view.js"

/** Every configured bundle in config order, with its lock entry and index state (items, diagnostics, staleness). */
export const bundleList = Effect.fn("bundle.list")(function* () {
  const workspace = yield* WorkspaceConfig
  const index = yield* IndexStore
  const config = yield* workspace.read
  const lock = yield* workspace.readLock
  const states = Object.keys(config.bundles).length === 0 ? [] : yield* index.bundles
  const state = new Map(states.map((s) => [s.bundle, s]))
  return {
    bundles: Object.entries(config.bundles).map(([name, bundle]) =>
      bundleView(name, bundle, lock.bundles[name], state.get(name)?.items ?? 0, config.defaultBundle, state.get(name))),
    defaultBundle: config.defaultBundle ?? null
  }
})
