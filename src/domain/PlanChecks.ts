import { Either } from "effect"
import type { BundleAdapter, BundleInfo, FileMeta, ItemPlan, PlanResult } from "./Adapter.js"
import type { Diagnostic } from "./Diagnostic.js"
import { validateConceptId } from "./Ref.js"

const quoted = (p: string): string => JSON.stringify(p)

/**
 * R-REF-5 over the adapter's plans: a concept id claimed twice keeps the
 * adapter's first plan (`duplicate-concept-id`, naming both files); ids that
 * differ only by case are kept but flagged (`case-collision`). Plans with ids
 * that are not valid refs are dropped (`invalid-concept-id`).
 */
export const checkPlans = (bundle: string, plans: ReadonlyArray<ItemPlan>): { readonly kept: ReadonlyArray<ItemPlan>; readonly diagnostics: ReadonlyArray<Diagnostic> } => {
  const kept: Array<ItemPlan> = []
  const diagnostics: Array<Diagnostic> = []
  const byId = new Map<string, ItemPlan>()
  const byFolded = new Map<string, ItemPlan>()
  for (const plan of plans) {
    const primary = plan.files[0] ?? plan.conceptId
    const invalid = validateConceptId(plan.conceptId)
    if (Either.isLeft(invalid)) {
      diagnostics.push({ code: "invalid-concept-id", severity: "error", path: primary, message: `${quoted(plan.conceptId)} cannot be a ref: ${invalid.left.reason}; the item is not indexed` })
      continue
    }
    const first = byId.get(plan.conceptId)
    if (first !== undefined) {
      diagnostics.push({
        code: "duplicate-concept-id",
        severity: "error",
        path: primary,
        ref: `${bundle}//${plan.conceptId}`,
        message: `${primary} and ${first.files[0] ?? first.conceptId} both map to ${plan.conceptId}; ${first.files[0] ?? first.conceptId} is indexed, this file is not`
      })
      continue
    }
    byId.set(plan.conceptId, plan)
    const folded = plan.conceptId.normalize("NFC").toLowerCase()
    const twin = byFolded.get(folded)
    if (twin === undefined) byFolded.set(folded, plan)
    else {
      diagnostics.push({
        code: "case-collision",
        severity: "warning",
        path: primary,
        ref: `${bundle}//${plan.conceptId}`,
        message: `${plan.conceptId} and ${twin.conceptId} differ only by letter case; they collide on case-insensitive file systems`
      })
    }
    kept.push(plan)
  }
  return { kept, diagnostics }
}

/**
 * Whether two listings name the same paths in the same order. Adapters plan
 * from the paths alone (no adapter reads a size, time or link target), so an
 * edit that creates and deletes nothing plans the tree as it is and as it
 * will be alike, and so does the index refresh after it.
 */
export const samePaths = (a: ReadonlyArray<FileMeta>, b: ReadonlyArray<FileMeta>): boolean => a === b || (a.length === b.length && a.every((f, i) => f.path === b[i]!.path))

/** An adapter's plan of a tree with its R-REF-5 checks. */
export interface CheckedPlan {
  readonly planned: PlanResult
  readonly checked: ReturnType<typeof checkPlans>
}

/**
 * The last tree planned in this process, by adapter, bundle and paths: a
 * write plans the tree in its validation (evaluation, engine) and again in
 * its index refresh, and an edit leaves the paths as they were (decision
 * 0032). Plans are read, never changed, by their users.
 */
let lastPlan: { readonly adapter: BundleAdapter; readonly info: BundleInfo; readonly files: ReadonlyArray<FileMeta>; readonly plan: CheckedPlan } | undefined

/** `adapter.plan` and `checkPlans` of a tree, or the last answer when adapter, bundle and paths are the same. A plan that throws is not kept. */
export const planChecked = (info: BundleInfo, adapter: BundleAdapter, files: ReadonlyArray<FileMeta>): CheckedPlan => {
  if (lastPlan !== undefined && lastPlan.adapter === adapter && lastPlan.info.name === info.name && lastPlan.info.root === info.root && lastPlan.info.writable === info.writable && samePaths(lastPlan.files, files)) return lastPlan.plan
  const planned = adapter.plan(files, info)
  const plan = { planned, checked: checkPlans(info.name, planned.items) }
  lastPlan = { adapter, info, files, plan }
  return plan
}
