import { skillMdRules, type SkillRule } from "../skill-md/rules.js"

/**
 * The agent-skills rule table (R-AD-3): the SKILL.md codec's rows with the
 * strict Agent Skills key set (any other top-level key is an error, as in
 * skills-ref).
 */
export const agentSkillsRules: ReadonlyArray<SkillRule> = skillMdRules("agent-skills")
