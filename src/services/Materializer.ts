import { Context, Data, type Effect } from "effect"
import type { BundleSource } from "../domain/Config.js"

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

/** Where a bundle's bytes are and which revision they are (spec 02 §2). */
export interface Materialized {
  readonly root: string
  readonly revision: string | null
  readonly integrity?: string | undefined
  /** A human locator of the source, recorded in the lock. */
  readonly locator: string
}

/** Fetches or refreshes a bundle's bytes; never interprets file formats. One layer per source kind. */
export class Materializer extends Context.Tag("akm/Materializer")<Materializer, {
  readonly materialize: (bundle: string, source: BundleSource) => Effect.Effect<Materialized, MaterializeFailed | SourceKindUnsupported>
  /** Removes the cache copy of a bundle; never a user's own directory (R-BUN-3). */
  readonly discard: (bundle: string, source: BundleSource) => Effect.Effect<void, MaterializeFailed>
}>() {}
