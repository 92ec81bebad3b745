import { Effect } from "effect"
import { IndexStore } from "../services/IndexStore.js"

/**
 * Like search (R-WS-2): an index.db that was never built (missing or deleted)
 * is built before a read. The indexer is imported on use: the start-up fast
 * paths (src/cli/fast/) serve only a built index and so never carry the scan
 * and the adapters in their bundles (docs/decisions/0013-fast-read-commands.md).
 */
export const ensureIndexed = Effect.gen(function* () {
  if ((yield* (yield* IndexStore).lastIndexed) !== undefined) return
  const { indexBundles } = yield* Effect.promise(() => import("./indexBundles.js"))
  yield* indexBundles({})
})
