import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { Frontmatter } from "../core/Frontmatter.js"
import type { RuleBook } from "../core/RuleBook.js"
import { codePointLength } from "../skill-md/index.js"

/**
 * Claude Code subagent frontmatter (`agents/*.md`). Claude Code ignores keys
 * it does not know without a word, so a misspelt `tool:` silently grants every
 * tool: unknown keys are warnings that suggest the nearest known key.
 */

/** The keys Claude Code reads from a subagent file; the claude rule table carries them (unknown-agent-field terms). */
export const CLAUDE_AGENT_FIELDS: ReadonlyArray<string> = [
  "name", "description", "tools", "disallowedTools", "model", "permissionMode", "maxTurns", "skills",
  "mcpServers", "hooks", "memory", "background", "effort", "isolation", "color", "initialPrompt"
]

/** Model aliases Claude Code accepts besides a full model id (the claude rule table carries them: invalid-model terms). */
export const CLAUDE_MODEL_ALIASES: ReadonlyArray<string> = ["sonnet", "opus", "haiku", "inherit", "opusplan"]

export const PERMISSION_MODES: ReadonlyArray<string> = ["default", "acceptEdits", "dontAsk", "bypassPermissions", "plan"]
export const MEMORY_SCOPES: ReadonlyArray<string> = ["user", "project", "local"]

/** An alias (optionally with a context suffix such as `[1m]`), or a full Claude model id on any provider. */
export const isClaudeModel = (model: string, aliases: ReadonlyArray<string>): boolean =>
  aliases.includes(model.replace(/\[[^\]]*\]$/, "")) || /^[\w.:@/-]*claude[\w.:@/[\]-]*$/i.test(model)

/** Why a model value is not an alias of the table's invalid-model row or a Claude model id; undefined when it is fine. */
export const claudeModelProblem = (book: RuleBook) => (model: string): string | undefined =>
  isClaudeModel(model, book.terms("invalid-model")) ? undefined : `model '${model}' is neither an alias (${book.terms("invalid-model").join(", ")}) nor a Claude model id`

const AGENT_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

const editDistance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}

/** The closest known key within two edits, for "did you mean". */
export const nearestKey = (key: string, known: ReadonlyArray<string>): string | undefined => {
  let best: { key: string; distance: number } | undefined
  for (const candidate of known) {
    const distance = editDistance(key, candidate)
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key: candidate, distance }
  }
  return best?.key
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : undefined)

/** The subagent checks: required name and description, known keys, model and value sets. */
export const checkClaudeAgent = (path: string, fm: Frontmatter, book: RuleBook): ReadonlyArray<Diagnostic> => {
  const out: Array<Diagnostic> = []
  const report = (code: string, message: string, line?: number) => out.push(...book.report(code, path, message, { line }))
  if (!fm.present) {
    report("missing-frontmatter", "a subagent file must start with YAML frontmatter holding `name` and `description`", 1)
    return out
  }
  const data = fm.data
  if (data === undefined) return out
  const lineOf = (key: string): number => fm.keyLines[key] ?? 1

  const name = text(data["name"])
  if (name === undefined || name === "") report("missing-name", "the subagent has no `name`", lineOf("name"))
  else {
    const limit = book.limit("invalid-name", "characters")
    if (!AGENT_NAME.test(name)) report("invalid-name", `name '${name}' must be lowercase letters and digits joined by single hyphens`, lineOf("name"))
    else if (limit !== undefined && codePointLength(name) > limit) report("invalid-name", `name '${name}' is longer than ${limit} characters`, lineOf("name"))
  }
  const description = text(data["description"])
  if (description === undefined || description === "") report("missing-description", "the subagent has no `description`; Claude uses it to decide when to delegate", lineOf("description"))

  const known = book.terms("unknown-agent-field")
  if (known.length > 0) {
    for (const key of Object.keys(data).filter((k) => !known.includes(k))) {
      const near = nearestKey(key, known)
      report("unknown-agent-field", `unknown subagent key \`${key}\`${near === undefined ? "" : ` (did you mean \`${near}\`?)`}; Claude Code ignores it`, lineOf(key))
    }
  }
  const model = data["model"]
  const modelProblem = model === undefined ? undefined : claudeModelProblem(book)(typeof model === "string" ? model.trim() : String(model))
  if (modelProblem !== undefined) report("invalid-model", modelProblem, lineOf("model"))
  const mode = data["permissionMode"]
  if (mode !== undefined && !PERMISSION_MODES.includes(String(mode))) report("invalid-agent-field", `permissionMode '${String(mode)}' is not one of ${PERMISSION_MODES.join(", ")}`, lineOf("permissionMode"))
  const turns = data["maxTurns"]
  if (turns !== undefined && !(typeof turns === "number" && Number.isInteger(turns) && turns > 0)) report("invalid-agent-field", `maxTurns must be a positive integer, not '${String(turns)}'`, lineOf("maxTurns"))
  const memory = data["memory"]
  if (memory !== undefined && !MEMORY_SCOPES.includes(String(memory))) report("invalid-agent-field", `memory '${String(memory)}' is not one of ${MEMORY_SCOPES.join(", ")}`, lineOf("memory"))
  return out
}
