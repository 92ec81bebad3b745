import type { FileMeta, PlanResult } from "../../../domain/Adapter.js"
import type { RuleBook } from "../core/RuleBook.js"
import { planSkills, type SkillParents } from "../skill-md/index.js"

/** Skills are the root's child directories; files at the root itself are not items. */
export const AGENT_SKILLS_PARENTS: SkillParents = [""]

export const planAgentSkills = (book: RuleBook) => (files: ReadonlyArray<FileMeta>): PlanResult => planSkills(files, AGENT_SKILLS_PARENTS, book)
