import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import { settlePlans, type Candidate } from "../akm/itemPlans.js"
import type { RuleBook as SkillRuleBook } from "../skill-md/ruleBook.js"
import { planSkills } from "../skill-md/skillDirectory.js"
import { projectConceptId, projectKindOf } from "./layout.js"

export const PROJECT_SKILL_PARENTS = ["skills"]

/** Knowledge files by their place in the layout, skills through the SKILL.md codec; source code is never an item. */
export const planProject = (files: ReadonlyArray<FileMeta>, book: SkillRuleBook): PlanResult => {
  const skills = planSkills(files, PROJECT_SKILL_PARENTS, book)
  const candidates: Array<Candidate> = [...skills.items]
  for (const { path } of files) {
    if (skills.claimed.has(path)) continue
    const kind = projectKindOf(path)
    if (kind !== undefined) candidates.push({ conceptId: projectConceptId(path), files: [path], kind })
  }
  const settled = settlePlans(candidates, book)
  return { items: settled.items, diagnostics: [...skills.diagnostics, ...settled.diagnostics] }
}
