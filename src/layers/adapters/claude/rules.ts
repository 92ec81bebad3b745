import type { RuleRow } from "../core/RuleBook.js"
import { skillMdRules, withGuidance } from "../skill-md/index.js"
import { CLAUDE_AGENT_FIELDS, CLAUDE_MODEL_ALIASES, MEMORY_SCOPES, PERMISSION_MODES } from "./agentFields.js"

/**
 * The claude rule table (R-AD-3): the SKILL.md codec's rows with Claude
 * Code's extension keys allowed (other unknown keys warn), sharing the name
 * and description rows with subagents, plus the subagent, command, rule and
 * plugin rows.
 */
export const claudeRules: ReadonlyArray<RuleRow> = [
  ...withGuidance(skillMdRules("claude"), {
    "missing-frontmatter": "Start every SKILL.md and every subagent file with a YAML frontmatter block between `---` lines.",
    "missing-name": "Give every skill and every subagent a non-empty `name`.",
    "invalid-name": "Write skill and subagent names in lowercase letters and digits joined by single hyphens, with no leading, trailing or doubled hyphen.",
    "missing-description": "Give every skill and every subagent a non-empty `description` saying what it does and when to use it.",
    "dangling-link": "Reference and `@import` only files that exist, by a path relative to the referring file (skills: relative to the skill directory)."
  }),
  { code: "unknown-agent-field", severity: "warning", terms: CLAUDE_AGENT_FIELDS, guidance: "Use only the subagent keys Claude Code reads; it ignores a misspelt key without a word." },
  { code: "invalid-model", severity: "warning", terms: CLAUDE_MODEL_ALIASES, guidance: "Set `model` to an alias or a full Claude model id." },
  { code: "invalid-agent-field", severity: "warning", guidance: `Give \`permissionMode\` one of ${PERMISSION_MODES.join(", ")}; \`maxTurns\` a positive integer; \`memory\` one of ${MEMORY_SCOPES.join(", ")}.` },
  { code: "invalid-paths", severity: "warning", guidance: "Write a rule's `paths` as a glob or a list of globs." },
  { code: "invalid-plugin-manifest", severity: "error", guidance: "Keep `.claude-plugin/plugin.json` a JSON object with a kebab-case `name`." }
]
