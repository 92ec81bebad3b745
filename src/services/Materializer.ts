import { Context, Data, type Effect } from "effect"
import type { BundleSource } from "../domain/Config.js"
import type { LockedBundle } from "../domain/Lock.js"

export class MaterializeFailed extends Data.TaggedError("MaterializeFailed")<{
  readonly bundle: string
  readonly source: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.bundle}: cannot materialize ${this.source}: ${this.reason}`
  }
}

export class SourceKindUnsupported extends Data.TaggedError("SourceKindUnsupported")<{
  readonly kind: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.kind} sources are not supported by this akm`
  }
}

/** Something a materializer skipped or noticed (an escaping symlink, a submodule, a refused page). */
export interface MaterializeDiagnostic {
  readonly code: string
  readonly message: string
  /** A path inside the materialized root, or a URL for websites. */
  readonly path?: string | undefined
}

/** Where a bundle's bytes are and which revision they are (spec 02 §2). */
export interface Materialized {
  readonly root: string
  readonly revision: string | null
  readonly integrity?: string | undefined
  /** A human locator of the source, recorded in the lock. */
  readonly locator: string
  readonly diagnostics?: ReadonlyArray<MaterializeDiagnostic> | undefined
  /** A crawl that hit a cap: the snapshot is kept and marked incomplete (R-WEB-4). */
  readonly partial?: boolean | undefined
}

export interface MaterializeOptions {
  /** The lock entry of what is installed now (update): lets a layer reuse its cache or send conditional requests. */
  readonly previous?: LockedBundle | undefined
  /** Re-fetch even when the source reports no change. */
  readonly force?: boolean | undefined
}

/** Fetches or refreshes a bundle's bytes; never interprets file formats. One implementation per source kind. */
export class Materializer extends Context.Tag("akm/Materializer")<Materializer, {
  /**
   * Makes the source's current revision available and returns where it is.
   * Never runs code from the source (R-BUN-1) and never touches the root of
   * `options.previous`, so a failed update leaves the last good revision usable (R-BUN-2).
   */
  readonly materialize: (bundle: string, source: BundleSource, options?: MaterializeOptions) => Effect.Effect<Materialized, MaterializeFailed | SourceKindUnsupported>
  /** Removes every cache copy of a bundle; never a user's own directory (R-BUN-3). */
  readonly discard: (bundle: string, source: BundleSource) => Effect.Effect<void, MaterializeFailed>
  /** After a successful update: removes the bundle's cache revisions other than `keepRoot`. */
  readonly prune: (bundle: string, source: BundleSource, keepRoot: string) => Effect.Effect<void, MaterializeFailed>
  /** Moves a bundle's cache copies to the new name; returns the new root (unchanged for in-place sources). */
  readonly rename: (from: string, to: string, source: BundleSource, root: string) => Effect.Effect<string, MaterializeFailed>
}>() {}
