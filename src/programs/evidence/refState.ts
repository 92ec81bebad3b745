import { Effect, Either } from "effect"
import { parse } from "../../domain/Ref.js"
import { IndexStore } from "../../services/IndexStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"

/**
 * Why each ref no longer names an item (its bundle was removed, or the index
 * has no such item), by ref; refs that resolve are absent. Evidence about a
 * vanished item is kept and listed flagged; an improve run skips it with this
 * reason. Never fails on a bad ref: it is reported as one.
 */
export const missingRefs = Effect.fn("evidence.missingRefs")(function* (refs: ReadonlyArray<string>) {
  const config = yield* (yield* WorkspaceConfig).read
  const index = yield* IndexStore
  const indexed = new Set((yield* index.bundles).map((b) => b.bundle))
  const out = new Map<string, string>()
  for (const ref of new Set(refs)) {
    const parsed = parse(ref)
    if (Either.isLeft(parsed) || parsed.right.bundle === undefined) {
      out.set(ref, "not a stored ref")
      continue
    }
    const { bundle, conceptId } = parsed.right
    if (config.bundles[bundle] === undefined) out.set(ref, `bundle '${bundle}' is no longer configured`)
    // An index that never saw the bundle cannot tell; only a bundle it indexed without the item says the item is gone.
    else if (indexed.has(bundle) && !(yield* index.has(bundle, conceptId))) out.set(ref, "the item no longer exists")
  }
  return out as ReadonlyMap<string, string>
})
