import type { BundleAdapter } from "../../../domain/Adapter.js"
import type { RuleRow } from "../core/RuleBook.js"
import { ruleDrivenAdapter } from "../core/RuleDrivenAdapter.js"
import { AGENT_SKILLS_AUTHORING, createAgentSkillsItem } from "./authoring.js"
import { planAgentSkills } from "./plan.js"
import { probeAgentSkills } from "./probe.js"
import { projectAgentSkillsItem } from "./project.js"
import { agentSkillsRules } from "./rules.js"

/** Built from a rule table so a test can prove the table drives both validation and instructions (R-AD-3). */
export const makeAgentSkillsAdapter = (rules: ReadonlyArray<RuleRow>): BundleAdapter =>
  ruleDrivenAdapter(
    {
      id: "agent-skills",
      version: "1",
      writable: true,
      description: "Agent Skills: one <name>/SKILL.md directory per skill, with reference documents, scripts and assets"
    },
    rules,
    (book) => ({
      probe: probeAgentSkills,
      plan: planAgentSkills(book),
      project: projectAgentSkillsItem(book),
      authoring: AGENT_SKILLS_AUTHORING,
      create: createAgentSkillsItem(book)
    })
  )

export const agentSkillsAdapter: BundleAdapter = makeAgentSkillsAdapter(agentSkillsRules)
