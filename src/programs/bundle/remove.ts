import { Effect } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { Materializer } from "../../services/Materializer.js"
import { recordEvent } from "../events.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleNotFound } from "./show.js"

/**
 * `akm bundle remove`: config, lock entry, cache copy and index rows go; a
 * user's own folder is never deleted, and ref-keyed state in state.db stays so
 * re-adding restores learned usage (R-BUN-3).
 */
export const bundleRemove = Effect.fn("bundle.remove")(function* (name: string) {
  const workspace = yield* WorkspaceConfig
  const config = yield* workspace.read
  const bundle = config.bundles[name]
  if (bundle === undefined) return yield* bundleNotFound(name, Object.keys(config.bundles))
  const removedItems = yield* (yield* IndexStore).removeBundle(name)
  // Only copies akm made live in its cache; a folder source is the user's own and is never touched.
  if (bundle.source.kind !== "filesystem") yield* (yield* Materializer).discard(name, bundle.source)
  yield* workspace.update((editor) => {
    editor.delete(["bundles", name])
    if (config.defaultBundle === name) editor.delete(["defaultBundle"])
  })
  yield* workspace.updateLock((current) => {
    const { [name]: _removed, ...rest } = current.bundles
    return { ...current, bundles: rest }
  })
  yield* recordEvent("bundle.removed", name)
  return {
    name,
    removed: true,
    removedItems,
    keptFolder: bundle.source.kind === "filesystem" ? bundle.source.path : null,
    defaultCleared: config.defaultBundle === name
  }
})
