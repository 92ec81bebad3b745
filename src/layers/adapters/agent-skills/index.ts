import { Effect } from "effect"
import type { BundleAdapter } from "../../../domain/Adapter.js"
import { makeRuleBook } from "../skill-md/ruleBook.js"
import type { SkillRule } from "../skill-md/rules.js"
import { agentSkillsAuthoringContext, createAgentSkillsItem } from "./authoring.js"
import { planAgentSkills } from "./plan.js"
import { probeAgentSkills } from "./probe.js"
import { projectAgentSkillsItem } from "./project.js"
import { agentSkillsRules } from "./rules.js"

const ID = "agent-skills"
const VERSION = "1"

/** Built from a rule table so a test can prove the table drives both validation and instructions (R-AD-3). */
export const makeAgentSkillsAdapter = (rules: ReadonlyArray<SkillRule>): BundleAdapter => {
  const book = makeRuleBook(rules)
  return {
    id: ID,
    version: VERSION,
    writable: true,
    description: "Agent Skills: one <name>/SKILL.md directory per skill, with reference documents, scripts and assets",
    rules,
    probe: probeAgentSkills,
    plan: planAgentSkills(book),
    project: projectAgentSkillsItem(book),
    authoringContext: () => Effect.succeed(agentSkillsAuthoringContext(ID, VERSION, book)),
    create: createAgentSkillsItem(book)
  }
}

export const agentSkillsAdapter: BundleAdapter = makeAgentSkillsAdapter(agentSkillsRules)
