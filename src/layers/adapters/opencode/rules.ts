import type { RuleRow } from "../core/RuleBook.js"
import { skillMdRules, withGuidance } from "../skill-md/index.js"
import { AGENT_MODES, PERMISSIONS } from "./agentFields.js"

/**
 * The opencode rule table (R-AD-3): the SKILL.md codec's rows (unknown skill
 * keys warn: OpenCode ignores them), sharing `missing-description` with
 * agents, plus the agent rows.
 */
export const openCodeRules: ReadonlyArray<RuleRow> = [
  ...withGuidance(skillMdRules("opencode"), {
    "missing-description": "Give every skill and every agent a non-empty `description` saying what it does and when to use it."
  }),
  { code: "invalid-mode", severity: "error", terms: AGENT_MODES, guidance: "Set an agent's `mode` to one of the OpenCode modes." },
  { code: "invalid-model", severity: "warning", guidance: "Write `model` as provider/model-id." },
  { code: "invalid-temperature", severity: "warning", limits: { minimum: 0, maximum: 1 }, guidance: "Give `temperature` a number in range." },
  { code: "invalid-tools", severity: "error", guidance: "Write `tools` as a map from tool names to true or false." },
  { code: "invalid-permission", severity: "warning", terms: PERMISSIONS, guidance: "Write `permission` as a map from tools to a permission (bash may map command patterns to one)." }
]
