import { Effect } from "effect"
import { NotFound } from "../../domain/Errors.js"
import { IndexStore } from "../../services/IndexStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleView } from "./view.js"

export const bundleNotFound = (name: string, known: ReadonlyArray<string>) =>
  new NotFound({
    what: "bundle",
    name,
    message: `no bundle named '${name}'`,
    hint: known.length === 0 ? "no bundles are configured; add one with `akm bundle add <folder>`" : `configured bundles: ${known.join(", ")}`
  })

export const bundleShow = Effect.fn("bundle.show")(function* (name: string) {
  const workspace = yield* WorkspaceConfig
  const index = yield* IndexStore
  const config = yield* workspace.read
  const bundle = config.bundles[name]
  if (bundle === undefined) return yield* bundleNotFound(name, Object.keys(config.bundles))
  const lock = yield* workspace.readLock
  const counts = yield* index.counts
  return bundleView(name, bundle, lock.bundles[name], counts[name] ?? 0, config.defaultBundle)
})
