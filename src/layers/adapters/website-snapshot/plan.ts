import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"

/**
 * Every markdown file of the snapshot is a page item, listed in the manifest
 * or not (plan sees paths only; project and lint compare with the manifest).
 * Concept id = path without `.md`.
 */
export const planPages = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult =>
  settlePlans(
    files.filter(({ path }) => path.endsWith(".md") && !path.split("/").includes(".git")).map(({ path }) => ({ conceptId: path.slice(0, -3), files: [path] })),
    book
  )
