import { Effect } from "effect"
import { IndexStore } from "../../services/IndexStore.js"
import { ensureIndexed } from "../ensureIndexed.js"

/** `akm secret list`: secret items by name (the files are never read; `.sensitive` ones are not indexed at all). */
export const secretList = Effect.fn("runtime.secretList")(function* () {
  yield* ensureIndexed
  const { items } = yield* (yield* IndexStore).browse({ prefix: "", filters: { types: ["secret"], belief: "all", includeProposed: true }, limit: 10_000 })
  return { secrets: items.map((item) => ({ ref: item.ref, bundle: item.bundle, name: item.name, editable: item.editable })) }
})
