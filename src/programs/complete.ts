import { Effect } from "effect"
import type { ItemFilters } from "../domain/Search.js"
import { IndexStore } from "../services/IndexStore.js"

/** At most this many bundle names or refs are offered: a shell lists them all, and nobody reads more. */
export const COMPLETION_LIMIT = 200

/** Every item, whatever its belief or proposal state: `show` and `feedback` take any ref. */
const EVERY_ITEM: ItemFilters = { belief: "all", includeProposed: true }

/**
 * Bundle names or refs starting with `partial`, read from the index only
 * (docs/decisions/0015-completions.md). Without `//`, a ref may still be a
 * bundle's name (`notes//` is offered) or a short ref (a concept id, R-REF-3).
 * Completion never fails: an index it cannot read offers nothing.
 */
export const completionValues = (kind: "bundles" | "refs", partial: string): Effect.Effect<ReadonlyArray<string>, never, IndexStore> =>
  Effect.gen(function* () {
    const store = yield* IndexStore
    const bundles = (yield* store.bundles).map((b) => b.bundle).filter((name) => name.startsWith(partial))
    if (kind === "bundles") return bundles.slice(0, COMPLETION_LIMIT)
    const split = partial.indexOf("//")
    if (split >= 0) {
      const { items } = yield* store.browse({ bundle: partial.slice(0, split), prefix: partial.slice(split + 2), filters: EVERY_ITEM, limit: COMPLETION_LIMIT })
      return items.map((item) => item.ref)
    }
    const { items } = yield* store.browse({ prefix: partial, filters: EVERY_ITEM, limit: COMPLETION_LIMIT })
    return [...new Set([...bundles.map((name) => `${name}//`), ...items.map((item) => item.conceptId)])].slice(0, COMPLETION_LIMIT)
  }).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
