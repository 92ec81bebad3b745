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
 * A detection that is unsure: the root looks like another adapter's, one folder down
 * (skills at `s1/<skill>/SKILL.md` where Agent Skills expects `<skill>/SKILL.md`).
 */
export interface DetectionDoubt {
  /** The adapter the nested folders look like. */
  readonly adapter: string
  /** Root-relative folders that would be bundles of that adapter, sorted. */
  readonly folders: ReadonlyArray<string>
  readonly reason: string
}

export interface Detection extends AdapterInfo {
  readonly doubt?: DetectionDoubt
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
  readonly detect: (root: string) => Effect.Effect<Detection, WorkspaceUnavailable>
}>() {}
