import { Either } from "effect"
import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { validateConceptId } from "../../../domain/Ref.js"
import type { RuleBook } from "../okf/ruleBook.js"

/**
 * Every markdown file of the snapshot is a page item, listed in the manifest
 * or not (plan sees paths only; project and lint compare with the manifest).
 * Concept id = path without `.md`.
 */
export const planPages = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult => {
  const items: Array<{ conceptId: string; files: ReadonlyArray<string> }> = []
  const diagnostics: Array<Diagnostic> = []
  for (const { path } of files) {
    if (!path.endsWith(".md") || path.split("/").includes(".git")) continue
    const conceptId = path.slice(0, -3)
    const valid = validateConceptId(conceptId)
    if (Either.isLeft(valid)) {
      diagnostics.push(...book.diagnostic("invalid-concept-id", { path, message: `cannot make a concept id from this path: ${valid.left.reason}` }))
      continue
    }
    items.push({ conceptId, files: [path] })
  }
  return { items, diagnostics }
}
