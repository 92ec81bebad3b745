import type { Effect } from "effect"
import type { BundleSource, SourceKind } from "../../domain/Config.js"
import type { Materialized, MaterializeFailed, MaterializeOptions } from "../../services/Materializer.js"

/** What one source kind's materializer gets from the workspace when the layer is built. */
export interface MaterializerContext {
  /** $CACHE/sources: every cache copy lives at <sourcesDir>/<bundle>/<revision>. */
  readonly sourcesDir: string
  /** Relative filesystem paths in config.yaml resolve against its folder. */
  readonly configDir: string
  /** Progress lines on stderr (TTY only; silent under --quiet). */
  readonly progress: (task: string, done: number, total?: number) => Effect.Effect<void>
  readonly progressDone: (task: string, message?: string) => Effect.Effect<void>
  /** Reads the current config (website.allowHosts, npm.registry) at materialize time. */
  readonly config: Effect.Effect<import("../../domain/Config.js").AkmConfig, unknown>
}

/** One source kind's implementation; MaterializerLive routes each call by `source.kind`. */
export interface SourceMaterializer<K extends SourceKind> {
  readonly kind: K
  readonly materialize: (bundle: string, source: Extract<BundleSource, { kind: K }>, options: MaterializeOptions) => Effect.Effect<Materialized, MaterializeFailed>
  /** true when the bytes live under sourcesDir (so discard/prune/rename manage them); false for in-place folders. */
  readonly cached: boolean
}
