import type { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { RuleBook } from "../core/RuleBook.js"
import { projectReference, projectSkillItem } from "../skill-md/index.js"
import { AGENT_SKILLS_PARENTS } from "./plan.js"

export const projectAgentSkillsItem = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> =>
  projectSkillItem(item, ctx, { book, parents: AGENT_SKILLS_PARENTS }) ?? projectReference(item, ctx, { book, parents: AGENT_SKILLS_PARENTS })
