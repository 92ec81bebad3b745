import { Context, type Effect } from "effect"
import type { BundleAdapter } from "../domain/Adapter.js"
import type { WorkspaceUnavailable } from "../domain/Errors.js"

export interface AdapterInfo {
  readonly id: string
  readonly version: string
  readonly description: string
  readonly writable: boolean
}

/**
 * The static registry of built-in adapters (spec 03). Selection runs the
 * probes in the order of spec 03 §1.2 over a bundle root; probes never write
 * (R-AD-6). The choice is persisted when a bundle is added and never
 * re-guessed (R-WS-7).
 */
export class Adapters extends Context.Tag("akm/Adapters")<Adapters, {
  readonly list: ReadonlyArray<AdapterInfo>
  readonly get: (id: string) => AdapterInfo | undefined
  /** The adapter implementation, for scanning, linting and authoring. */
  readonly adapter: (id: string) => BundleAdapter | undefined
  /** Picks the adapter for a root by the ordered probes. */
  readonly detect: (root: string) => Effect.Effect<AdapterInfo, WorkspaceUnavailable>
}>() {}
