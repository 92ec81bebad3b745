import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"

/** Every `.md` is an item (id = path without `.md`); which ones are workflows is read from their frontmatter. */
export const planAkmWorkflow = (files: ReadonlyArray<FileMeta>, book: RuleBook): PlanResult =>
  settlePlans(files.filter((file) => file.path.endsWith(".md")).map((file) => ({ conceptId: file.path.slice(0, -".md".length), files: [file.path] })), book)
