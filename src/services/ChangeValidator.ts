import { Context, type Effect } from "effect"
import type { BundleAdapter, BundleInfo } from "../domain/Adapter.js"
import type { Diagnostic } from "../domain/Diagnostic.js"
import type { WorkspaceUnavailable } from "../domain/Errors.js"
import type { FileChange } from "../domain/FileChange.js"

/** What validating one bundle's share of a change set found. */
export interface ChangeFindings {
  /**
   * Findings the changes introduce, of every severity: the adapter's per-item
   * findings, the plan checks (duplicate concept ids) and its whole-bundle
   * rules (links, refs), on the tree as it will be, less what the tree as it
   * is already reports (same code, same path, as many times).
   */
  readonly introduced: ReadonlyArray<Diagnostic>
  /** Refs of the items that hold a changed file, as they are after the changes. */
  readonly refs: ReadonlyArray<string>
  /** Items projected (both trees together): the touched ones and what depends on them when the index could be reused. */
  readonly projected: number
  /** Whether the index's stored item inputs stood in for the untouched items, or every item was projected. */
  readonly incremental: boolean
}

/**
 * Validates a change set against one bundle (spec 05 §2 step 5, spec 03 §3):
 * the same findings a full scan of the changed tree would add, computed from
 * what the index keeps of the untouched items (R-IDX-2) plus a projection of
 * the touched ones; a full validation when the index is missing or stale for
 * the bundle. Reads only. Both the proposal evaluation and the transaction
 * engine validate through it, so they agree.
 */
export class ChangeValidator extends Context.Tag("akm/ChangeValidator")<ChangeValidator, {
  readonly validate: (bundle: BundleInfo, adapter: BundleAdapter, changes: ReadonlyArray<FileChange>) => Effect.Effect<ChangeFindings, WorkspaceUnavailable>
}>() {}
