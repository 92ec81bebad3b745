import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"
import { isTaskFileName } from "./probe.js"

/** Every `.yml`/`.yaml` file is a task; id = path without the extension (`.yml` wins a tie). */
export const planAkmTask = (files: ReadonlyArray<FileMeta>, book: RuleBook): PlanResult =>
  settlePlans(
    files.filter((file) => isTaskFileName(file.path)).map((file) => ({
      conceptId: file.path.replace(/\.ya?ml$/, ""),
      files: [file.path],
      rank: file.path.endsWith(".yml") ? 0 : 1
    })),
    book
  )
