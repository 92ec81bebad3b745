import { Effect } from "effect"
import { NotFound } from "../../domain/Errors.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { recordAcceptedRetirements } from "./catchUp.js"
import { OUT_OF_TIER } from "./tiers.js"

/** `memories/x` or `bundle//memories/x.md` as the archive keys it: the ref with the bundle, without `.md`. */
const candidates = (given: string): ReadonlyArray<string> => {
  const bare = given.trim().replace(/\.md$/, "")
  return [bare]
}

/** The newest archive row of a ref that is out of its tier (retired or quarantined); NotFound names what to do. */
export const archivedEntry = Effect.fn("memory.archived")(function* (ref: string) {
  yield* recordAcceptedRetirements()
  const store = yield* MemoryStore
  for (const candidate of candidates(ref)) {
    const rows = candidate.includes("//") ? yield* store.list({ ref: candidate, states: OUT_OF_TIER }) : (yield* store.list({ states: OUT_OF_TIER })).filter((r) => r.ref.endsWith(`//${candidate}`))
    const row = rows.at(-1)
    if (row !== undefined) return row
  }
  return yield* new NotFound({
    what: "archived memory",
    name: ref,
    message: `${ref} is not in the memory archive (nothing retired or quarantined has that ref)`,
    hint: "list what is archived with `akm memory status --format json` or `akm proposal list --recipe memory-consolidate`"
  })
})
