import { Clock, Context, Effect, Layer } from "effect"
import { indexBundles } from "../../programs/indexBundles.js"
import type { AkmServices } from "../run.js"

/** How long a refresh of the index stays good for a long-running server (ms). */
export const REFRESH_INTERVAL_MS = 1_000

/**
 * A long-running server must see a bundle edited on disk (issue 24 §3): before
 * a read, the index is brought up to date incrementally (unchanged files are
 * only stat'ed) when the last refresh is older than `intervalMs`. Concurrent
 * calls wait for one refresh instead of each running their own; a failed
 * refresh leaves the index as it was and the call answers from it (the
 * answer's `stale` list names bundles that could not be read).
 */
export const makeFreshness = (intervalMs: number = REFRESH_INTERVAL_MS) =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)
    let refreshedAt = Number.NEGATIVE_INFINITY
    const ensureFresh: Effect.Effect<void, never, AkmServices> = lock.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (now - refreshedAt < intervalMs) return
        yield* indexBundles({}).pipe(Effect.asVoid, Effect.catchAllCause((cause) => Effect.logDebug("index refresh failed", cause)))
        refreshedAt = yield* Clock.currentTimeMillis
      })
    )
    return ensureFresh
  })

/** The server's one index refresh, shared by the tools and the ref resources. */
export class McpFreshness extends Context.Tag("akm/McpFreshness")<McpFreshness, Effect.Effect<void, never, AkmServices>>() {
  static readonly layer = (intervalMs?: number) => Layer.effect(McpFreshness, makeFreshness(intervalMs))
}
