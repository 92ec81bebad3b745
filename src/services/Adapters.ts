import { Context, type Effect } from "effect"
import type { WorkspaceUnavailable } from "../domain/Errors.js"

export interface AdapterInfo {
  readonly id: string
  readonly version: string
  readonly description: string
}

/**
 * The static registry of built-in adapters (spec 03). Selection runs probes
 * over a bundle root, which never write (R-AD-6); the choice is persisted when a
 * bundle is added and never re-guessed (R-WS-7).
 */
export class Adapters extends Context.Tag("akm/Adapters")<Adapters, {
  readonly list: ReadonlyArray<AdapterInfo>
  readonly get: (id: string) => AdapterInfo | undefined
  /** Picks the adapter for a root by the ordered probes. */
  readonly detect: (root: string) => Effect.Effect<AdapterInfo, WorkspaceUnavailable>
}>() {}
