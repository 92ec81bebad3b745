import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Effect } from "effect"
import type { RuleBook } from "../skill-md/ruleBook.js"
import { projectReference, projectSkill, SKILL_KIND } from "../skill-md/skillDirectory.js"
import { AGENT_SKILLS_PARENTS } from "./plan.js"

export const projectAgentSkillsItem = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> =>
  item.kind === SKILL_KIND
    ? projectSkill(item, ctx, { book, parents: AGENT_SKILLS_PARENTS })
    : projectReference(item, ctx, { book, parents: AGENT_SKILLS_PARENTS })
