import { Either } from "effect"
import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { validateConceptId } from "../../../domain/Ref.js"
import { isReservedFile } from "./links.js"
import type { RuleBook } from "./ruleBook.js"

/**
 * Every `.md` file at any depth is a concept except the reserved `index.md`
 * and `log.md` (OKF §3.1); concept id = path without `.md` (OKF §2). Other
 * files (resources such as `.py` attesters or a `viz.html`) are not items.
 */
export const planConcepts = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult => {
  const items: Array<{ conceptId: string; files: ReadonlyArray<string> }> = []
  const diagnostics: Array<Diagnostic> = []
  for (const { path } of files) {
    if (!path.endsWith(".md") || isReservedFile(path) || path.split("/").includes(".git")) continue
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
