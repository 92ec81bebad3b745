import { Effect } from "effect"
import { MemoryStore } from "../../services/MemoryStore.js"
import { archivedEntry } from "./archived.js"

export interface HoldResult {
  readonly ref: string
  readonly digest: string
  readonly hold: boolean
}

/** `akm memory hold <ref> [--release]` (spec 06 §8.5): a held archived item is never purged. */
export const memoryHold = Effect.fn("memory.hold")(function* (ref: string, release = false) {
  const entry = yield* archivedEntry(ref)
  yield* (yield* MemoryStore).setHold(entry.id, !release)
  return { ref: entry.ref, digest: entry.digest, hold: !release } satisfies HoldResult as HoldResult
})
