import type { RuleRow } from "../core/RuleBook.js"

/**
 * The SKILL.md rule rows (spec 03 "agent-skills"), shared by the agent-skills,
 * claude and opencode adapters. A row carries the numbers and word lists its
 * check enforces, so the one table drives both what authors are told and what
 * the validator does (R-AD-3).
 */

/** The tool a SKILL.md is written for: its extension keys are allowed beside the spec's six. */
export type SkillHost = "agent-skills" | "claude" | "opencode"

/** The Agent Skills spec's frontmatter keys; skills-ref rejects every other key. */
export const SPEC_FIELDS: ReadonlyArray<string> = ["name", "description", "license", "allowed-tools", "metadata", "compatibility"]

/** Extension keys a host tool reads from SKILL.md (spec 03 "agent-skills"). */
export const HOST_FIELDS: Readonly<Record<SkillHost, ReadonlyArray<string>>> = {
  "agent-skills": [],
  claude: ["when_to_use", "argument-hint", "disable-model-invocation", "user-invocable", "model", "effort", "context", "agent", "hooks", "paths", "shell"],
  opencode: []
}

/**
 * Phrases that count as a "when to use" clause in a description
 * (case-insensitive substring match). Claude's `when_to_use` key also counts.
 */
export const WHEN_TO_USE_PHRASES: ReadonlyArray<string> = [
  "use when", "use it when", "use this", "use for", "use it for", "use if", "use whenever", "use on", "use before", "use after", "use during", "use while",
  "used when", "used for", "when to use", "for when", "whenever", "when the user", "when asked", "when you need", "when working with", "invoke when", "trigger when"
]

/**
 * The rows in the reference validator's check order (skills-ref `validate()`),
 * then akm's own warnings. `unexpected-field` is an error in an Agent Skills
 * bundle (skills-ref rejects any other key) and a warning in a host bundle,
 * where the host's extension keys are allowed.
 */
export const skillMdRules = (host: SkillHost): ReadonlyArray<RuleRow> => [
  { code: "missing-frontmatter", severity: "error", guidance: "Start SKILL.md with a YAML frontmatter block: a `---` line, the keys, and a closing `---` line." },
  { code: "invalid-frontmatter", severity: "error", guidance: "Write the frontmatter as valid YAML: a mapping of keys to values, closed by a `---` line." },
  host === "agent-skills"
    ? { code: "unexpected-field", severity: "error", terms: SPEC_FIELDS, guidance: "Use only the Agent Skills frontmatter keys; put anything else under `metadata`." }
    : { code: "unexpected-field", severity: "warning", terms: [...SPEC_FIELDS, ...HOST_FIELDS[host]], guidance: "Use only the Agent Skills keys and the host tool's own keys; the host ignores other keys silently, so put anything else under `metadata`." },
  { code: "missing-name", severity: "error", guidance: "Give every skill a non-empty `name`." },
  { code: "invalid-name", severity: "error", limits: { characters: 64 }, guidance: "Write `name` in lowercase letters and digits joined by single hyphens, with no leading, trailing or doubled hyphen." },
  { code: "name-directory-mismatch", severity: "error", guidance: "Name the skill's directory exactly like its `name`." },
  { code: "missing-description", severity: "error", guidance: "Give every skill a non-empty `description` saying what it does and when to use it." },
  { code: "description-too-long", severity: "error", limits: { characters: 1024 }, guidance: "Keep `description` short; move detail into the body." },
  { code: "compatibility-too-long", severity: "error", limits: { characters: 500 }, guidance: "Keep `compatibility` a short string naming environment requirements only." },
  { code: "invalid-metadata", severity: "error", guidance: "Write `metadata` as a mapping from string keys to string values." },
  { code: "body-too-long", severity: "warning", limits: { lines: 500, tokens: 5000 }, guidance: "Keep the SKILL.md body short (tokens approximated as characters / 4); move detail into reference files." },
  { code: "missing-when-to-use", severity: "warning", terms: WHEN_TO_USE_PHRASES, guidance: "Say in `description` when to use the skill (for example \"Use when …\")." },
  { code: "name-reserved-word", severity: "warning", terms: ["anthropic", "claude"], guidance: "Keep the reserved words out of `name`." },
  { code: "name-xml-tag", severity: "warning", guidance: "Keep XML tags out of `name`." },
  { code: "missing-skill-md", severity: "warning", strictSeverity: "error", guidance: "Give every skill directory a SKILL.md; a directory without one is not a skill." },
  { code: "dangling-link", severity: "warning", guidance: "Reference only files that exist in the skill, by their path relative to the skill directory." }
]

/** Replaces the guidance of some rows (a host adapter shares a code with its agents, say). */
export const withGuidance = (rules: ReadonlyArray<RuleRow>, guidance: Readonly<Record<string, string>>): ReadonlyArray<RuleRow> =>
  rules.map((rule) => (guidance[rule.code] === undefined ? rule : { ...rule, guidance: guidance[rule.code]! }))
