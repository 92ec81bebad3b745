import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans } from "../core/ItemPlans.js"
import type { RuleBook } from "../core/RuleBook.js"
import { planSkills } from "../skill-md/index.js"
import { projectConceptId, projectKindOf } from "./layout.js"

export const PROJECT_SKILL_PARENTS = ["skills"]

/** Knowledge files by their place in the layout, skills through the SKILL.md codec; source code is never an item. */
export const planProject = (files: ReadonlyArray<FileMeta>, book: RuleBook): PlanResult => {
  const planned = planSkills(files, PROJECT_SKILL_PARENTS, book, (path) => {
    const kind = projectKindOf(path)
    return kind === undefined ? undefined : { conceptId: projectConceptId(path), files: [path], kind }
  })
  const settled = settlePlans(planned.items, book)
  return { items: settled.items, diagnostics: [...planned.diagnostics, ...settled.diagnostics] }
}
