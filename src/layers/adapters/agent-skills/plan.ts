import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import type { RuleBook } from "../skill-md/ruleBook.js"
import { planSkills, type SkillParents } from "../skill-md/skillDirectory.js"

/** Skills are the root's child directories; files at the root itself are not items. */
export const AGENT_SKILLS_PARENTS: SkillParents = [""]

export const planAgentSkills = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult => {
  const { items, diagnostics } = planSkills(files, AGENT_SKILLS_PARENTS, book)
  return { items, diagnostics }
}
