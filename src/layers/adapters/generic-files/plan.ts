import { Either } from "effect"
import type { FileMeta, ItemPlan, PlanResult } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { validateConceptId } from "../../../domain/Ref.js"
import type { RuleBook } from "../okf/ruleBook.js"
import { conceptIdOf, kindOf } from "./kinds.js"

/**
 * Every file the walk found is an item; its kind comes from its extension.
 * Only `name.md` and an extension-less `name` can share a concept id; the
 * markdown file wins (R-REF-5: the adapter's extension priority).
 */
export const planFiles = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult => {
  const byId = new Map<string, ItemPlan>()
  const diagnostics: Array<Diagnostic> = []
  for (const { path } of files) {
    if (path.split("/").includes(".git")) continue
    const conceptId = conceptIdOf(path)
    const valid = validateConceptId(conceptId)
    if (Either.isLeft(valid)) {
      diagnostics.push(...book.diagnostic("invalid-concept-id", { path, message: `cannot make a concept id from this path: ${valid.left.reason}` }))
      continue
    }
    const item: ItemPlan = { conceptId, files: [path], kind: kindOf(path) }
    const other = byId.get(conceptId)
    if (other === undefined) {
      byId.set(conceptId, item)
      continue
    }
    const [winner, loser] = item.kind === "markdown" ? [item, other] : [other, item]
    byId.set(conceptId, winner)
    diagnostics.push(...book.diagnostic("duplicate-concept-id", { path: loser.files[0]!, message: `${loser.files[0]} and ${winner.files[0]} both map to concept id "${conceptId}"; ${winner.files[0]} is indexed` }))
  }
  return { items: [...byId.values()], diagnostics }
}
