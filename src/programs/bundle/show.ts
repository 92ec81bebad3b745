import { Effect } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleNotFound } from "./notFound.js"
import { bundleView } from "./view.js"

export { bundleNotFound } from "./notFound.js"

/** One bundle's config, lock entry and index state (spec 02 §1). */
export const bundleShow = Effect.fn("bundle.show")(function* (name: string) {
  const workspace = yield* WorkspaceConfig
  const index = yield* IndexStore
  const config = yield* workspace.read
  const bundle = config.bundles[name]
  if (bundle === undefined) return yield* bundleNotFound(name, Object.keys(config.bundles))
  const lock = yield* workspace.readLock
  const state = (yield* index.bundles).find((s) => s.bundle === name)
  return bundleView(name, bundle, lock.bundles[name], state?.items ?? 0, config.defaultBundle, state)
})
