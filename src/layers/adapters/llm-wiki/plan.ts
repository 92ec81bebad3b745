import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"
import { isReservedName, kindOf } from "./layout.js"

/** Every `.md` but the reserved `index.md`/`log.md` is an item (id = path without `.md`), kind from its place. */
export const planLlmWiki = (files: ReadonlyArray<FileMeta>, book: RuleBook): PlanResult =>
  settlePlans(
    files
      .filter((file) => file.path.endsWith(".md") && !isReservedName(file.path))
      .map((file) => ({ conceptId: file.path.slice(0, -".md".length), files: [file.path], kind: kindOf(file.path) })),
    book
  )
