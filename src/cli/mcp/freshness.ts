import { Context, Effect, Layer } from "effect"
import * as path from "node:path"
import { watchTrees, type WatchedTree } from "../../layers/fs/TreeWatch.js"
import { indexBundles } from "../../programs/indexBundles.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import type { AkmServices } from "../run.js"

/** Bundle folders, config.yaml and akm.lock: where an edit makes the index stale. */
const watchedRoots: Effect.Effect<ReadonlyArray<WatchedTree>, unknown, WorkspaceConfig> = Effect.gen(function* () {
  const workspace = yield* WorkspaceConfig
  const config = yield* workspace.read
  const lock = yield* workspace.readLock
  const roots = Object.entries(config.bundles).flatMap(([name, bundle]) => {
    const root = lock.bundles[name]?.root ?? (bundle.source.kind === "filesystem" ? bundle.source.path : undefined)
    return root === undefined ? [] : [{ path: root }]
  })
  const files: WatchedTree = { path: path.dirname(workspace.paths.configFile), only: [path.basename(workspace.paths.configFile), path.basename(workspace.paths.lockFile)] }
  return [...roots, files]
})

/**
 * A long-running server must see a bundle edited on disk (issue 24 §3): the
 * bundle folders (and the config folder) are watched, and a read after a
 * change first brings the index up to date incrementally (unchanged files are
 * only stat'ed). With nothing changed a read costs nothing extra. When a
 * folder cannot be watched, every read refreshes. Concurrent reads wait for
 * one refresh; a failed refresh leaves the index as it was (the answer's
 * `stale` list names bundles that could not be read).
 */
export const makeFreshness = Effect.gen(function* () {
  const lock = yield* Effect.makeSemaphore(1)
  let changed = true
  let watching: { readonly close: () => void; readonly complete: boolean } | undefined
  yield* Effect.addFinalizer(() => Effect.sync(() => watching?.close()))
  const ensureFresh: Effect.Effect<void, never, AkmServices> = lock.withPermits(1)(
    Effect.gen(function* () {
      if (!changed) return
      changed = false
      // Watch before scanning: an edit during the scan marks the index changed again.
      watching?.close()
      const roots = yield* Effect.orElseSucceed(watchedRoots, (): ReadonlyArray<WatchedTree> => [])
      watching = watchTrees(roots, () => void (changed = true))
      if (!watching.complete) changed = true
      yield* indexBundles({}).pipe(Effect.asVoid, Effect.catchAllCause((cause) => Effect.logDebug("index refresh failed", cause)))
    })
  )
  return ensureFresh
})

/** The server's one index refresh, shared by the tools and the ref resources. */
export class McpFreshness extends Context.Tag("akm/McpFreshness")<McpFreshness, Effect.Effect<void, never, AkmServices>>() {
  static readonly layer = Layer.scoped(McpFreshness, makeFreshness)
}
