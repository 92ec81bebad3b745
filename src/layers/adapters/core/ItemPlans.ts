import { Either } from "effect"
import type { ItemPlan, PlanResult } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { validateConceptId } from "../../../domain/Ref.js"
import type { RuleBook } from "./RuleBook.js"

/** An item a plan would like to make; `rank` breaks concept-id ties (lower wins). */
export interface Candidate extends ItemPlan {
  readonly rank?: number
}

/**
 * Turns candidates into a plan: one item per concept id, the rest reported as
 * `duplicate-concept-id` naming both files (R-REF-5), ids that cannot be refs
 * reported as `invalid-concept-id`. Sorted by concept id (R-AD-2).
 */
export const settlePlans = (candidates: ReadonlyArray<Candidate>, book: RuleBook): PlanResult => {
  const diagnostics: Array<Diagnostic> = []
  const winners = new Map<string, Candidate>()
  const ordered = [...candidates].sort((a, b) =>
    a.conceptId < b.conceptId ? -1 : a.conceptId > b.conceptId ? 1 : (a.rank ?? 0) - (b.rank ?? 0) || (a.files[0]! < b.files[0]! ? -1 : 1))
  for (const candidate of ordered) {
    const primary = candidate.files[0]!
    const valid = validateConceptId(candidate.conceptId)
    if (Either.isLeft(valid)) {
      diagnostics.push(...book.report("invalid-concept-id", primary, `${JSON.stringify(primary)} cannot be named by a ref: ${valid.left.reason}`))
      continue
    }
    const winner = winners.get(candidate.conceptId)
    if (winner !== undefined) {
      diagnostics.push(...book.report("duplicate-concept-id", primary, `${primary} and ${winner.files[0]} both map to ${candidate.conceptId}; ${winner.files[0]} is indexed`))
      continue
    }
    winners.set(candidate.conceptId, candidate)
  }
  const items = [...winners.values()].map(({ conceptId, files, kind }) => (kind === undefined ? { conceptId, files } : { conceptId, files, kind }))
  return { items, diagnostics }
}
