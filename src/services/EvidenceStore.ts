import { Context, type Effect } from "effect"
import type { Evidence, EvidenceFilter, EvidenceInput } from "../domain/Evidence.js"
import type { StateStoreError } from "./StateStore.js"

/**
 * Evidence rows in state.db (spec 06 §1). Adding is idempotent by content hash
 * per independence key, so re-importing a transcript or re-running lint does
 * not inflate counts (R-IMP-2).
 */
export class EvidenceStore extends Context.Tag("akm/EvidenceStore")<EvidenceStore, {
  /** Stores rows whose notes the caller already redacted; returns each stored (or already present) row. */
  readonly add: (inputs: ReadonlyArray<EvidenceInput>) => Effect.Effect<ReadonlyArray<Evidence>, StateStoreError>
  /** Newest first. */
  readonly list: (filter: EvidenceFilter) => Effect.Effect<ReadonlyArray<Evidence>, StateStoreError>
  readonly get: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Evidence>, StateStoreError>
  /** Distinct independence keys among the rows (R-IMP-2). */
  readonly independentCount: (rows: ReadonlyArray<Evidence>) => number
  /** Marks rows used (an accepted proposal consumed them) or dismissed. */
  readonly mark: (ids: ReadonlyArray<string>, status: Evidence["status"]) => Effect.Effect<void, StateStoreError>
  /** Ids that start with `prefix` (what a user types to name a row), sorted, at most `limit`. */
  readonly idsStartingWith: (prefix: string, limit: number) => Effect.Effect<ReadonlyArray<string>, StateStoreError>
  /** Rekeys every row of one bundle (R-REF-6); ids stay, hashes follow the new refs. */
  readonly renameBundle: (from: string, to: string) => Effect.Effect<void, StateStoreError>
}>() {}
