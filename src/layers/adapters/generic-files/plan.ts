import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"
import { conceptIdOf, kindOf } from "./kinds.js"

/**
 * Every file the walk found is an item; its kind comes from its extension.
 * Only `name.md` and an extension-less `name` can share a concept id; the
 * markdown file wins (R-REF-5: the adapter's extension priority).
 */
export const planFiles = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult =>
  settlePlans(
    files
      .filter(({ path }) => !path.split("/").includes(".git"))
      .map(({ path }) => {
        const kind = kindOf(path)
        return { conceptId: conceptIdOf(path), files: [path], kind, rank: kind === "markdown" ? 0 : 1 }
      }),
    book
  )
