import { Effect } from "effect"
import { isNewBundleName, suggestBundleName } from "../../domain/Ref.js"
import { shellCommand } from "../../domain/ShellQuote.js"
import { IndexStore } from "../../services/IndexStore.js"
import { Progress } from "../../services/Progress.js"
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
  // Older names outside spec 01 §5 still load; say once per listing how to make them plain.
  for (const name of Object.keys(config.bundles).filter((n) => !isNewBundleName(n))) {
    yield* (yield* Progress).warn(`bundle '${name}' has a name outside the naming rule; rename it: ${shellCommand("akm bundle rename", name, suggestBundleName(name))}`)
  }
  return {
    bundles: Object.entries(config.bundles).map(([name, bundle]) =>
      bundleView(name, bundle, lock.bundles[name], state.get(name)?.items ?? 0, config.defaultBundle, state.get(name))),
    defaultBundle: config.defaultBundle ?? null
  }
})
