import { Clock, Effect } from "effect"
import type { SearchInput } from "../domain/Search.js"
import { IndexStore } from "../services/IndexStore.js"
import { indexBundles } from "./indexBundles.js"
import { searchIndexed } from "./searchIndexed.js"

/**
 * `akm search <query>` (spec 04 §3): a never-built index.db is built first
 * (R-WS-2), then searchIndexed ranks and records the search. The CLI's fast
 * path (src/cli/fast/) runs searchIndexed alone and hands a never-built index
 * to the full CLI, which ends up here.
 */
export const search = Effect.fn("search")(function* (input: SearchInput) {
  const started = yield* Clock.currentTimeNanos
  if ((yield* (yield* IndexStore).lastIndexed) === undefined) yield* indexBundles({})
  return yield* searchIndexed(input, started)
})
