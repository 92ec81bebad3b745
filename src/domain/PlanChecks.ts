import { Either } from "effect"
import type { ItemPlan } from "./Adapter.js"
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
