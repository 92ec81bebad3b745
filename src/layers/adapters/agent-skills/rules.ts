import type { RuleRow } from "../core/RuleBook.js"
import { skillMdRules } from "../skill-md/index.js"

/**
 * The agent-skills rule table (R-AD-3): the SKILL.md codec's rows with the
 * strict Agent Skills key set (any other top-level key is an error, as in
 * skills-ref).
 */
export const agentSkillsRules: ReadonlyArray<RuleRow> = skillMdRules("agent-skills")
