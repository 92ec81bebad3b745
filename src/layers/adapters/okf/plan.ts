import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"
import { isReservedFile } from "./concepts.js"

/**
 * Every `.md` file at any depth is a concept except the reserved `index.md`
 * and `log.md` (OKF §3.1); concept id = path without `.md` (OKF §2). Other
 * files (resources such as `.py` attesters or a `viz.html`) are not items.
 */
export const planConcepts = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult =>
  settlePlans(
    files
      .filter(({ path }) => path.endsWith(".md") && !isReservedFile(path) && !path.split("/").includes(".git"))
      .map(({ path }) => ({ conceptId: path.slice(0, -3), files: [path] })),
    book
  )
