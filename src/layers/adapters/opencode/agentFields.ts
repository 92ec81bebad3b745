import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { Frontmatter } from "../core/Frontmatter.js"
import type { RuleBook } from "../core/RuleBook.js"

/**
 * OpenCode agent frontmatter (`agent/*.md` or `agents/*.md`): `description`
 * is required; `mode` is primary, subagent or all; `model` is
 * `provider/model-id`; `temperature` is a number, usually 0–1; `tools` maps
 * tool names to true/false; `permission` maps a tool to ask/allow/deny (bash
 * also to a map of command patterns). The agent's name is its file name.
 */

export const AGENT_MODES: ReadonlyArray<string> = ["primary", "subagent", "all"]
export const PERMISSIONS: ReadonlyArray<string> = ["ask", "allow", "deny"]

/** OpenCode models are `provider/model-id`. */
export const openCodeModelProblem = (model: string): string | undefined =>
  /^[^/\s]+\/\S+$/.test(model) ? undefined : `model '${model}' is not in the provider/model-id form (for example anthropic/claude-sonnet-4-5)`

const isMapping = (value: unknown): value is Readonly<Record<string, unknown>> => value !== null && typeof value === "object" && !Array.isArray(value)

export const checkOpenCodeAgent = (path: string, fm: Frontmatter, book: RuleBook): ReadonlyArray<Diagnostic> => {
  const out: Array<Diagnostic> = []
  const data = fm.data
  const lineOf = (key: string): number => fm.keyLines[key] ?? 1
  const report = (code: string, message: string, line: number) => out.push(...book.report(code, path, message, { line }))
  if (fm.present && data === undefined) return out
  const description = data?.["description"]
  if (typeof description !== "string" || description.trim() === "") report("missing-description", "the agent has no `description`; OpenCode uses it to choose the agent", lineOf("description"))
  if (data === undefined) return out

  const modes = book.terms("invalid-mode")
  const mode = data["mode"]
  if (mode !== undefined && !modes.includes(String(mode))) report("invalid-mode", `mode '${String(mode)}' is not one of ${modes.join(", ")}`, lineOf("mode"))
  const model = data["model"]
  if (model !== undefined) {
    const problem = openCodeModelProblem(String(model))
    if (problem !== undefined) report("invalid-model", problem, lineOf("model"))
  }
  const temperature = data["temperature"]
  const min = book.limit("invalid-temperature", "minimum")
  const max = book.limit("invalid-temperature", "maximum")
  if (temperature !== undefined && (typeof temperature !== "number" || (min !== undefined && temperature < min) || (max !== undefined && temperature > max))) {
    report("invalid-temperature", `temperature '${String(temperature)}' is not a number from ${min ?? "-∞"} to ${max ?? "∞"}`, lineOf("temperature"))
  }
  const tools = data["tools"]
  if (tools !== undefined && !(isMapping(tools) && Object.values(tools).every((v) => typeof v === "boolean"))) {
    report("invalid-tools", "`tools` must map tool names to true or false", lineOf("tools"))
  }
  const permission = data["permission"]
  const allowed = book.terms("invalid-permission")
  const isPermission = (v: unknown): boolean => typeof v === "string" && allowed.includes(v)
  if (permission !== undefined && !(isMapping(permission) && Object.values(permission).every((v) => isPermission(v) || (isMapping(v) && Object.values(v).every(isPermission))))) {
    report("invalid-permission", `\`permission\` must map tools to ${allowed.join(", ")} (bash also to a map of command patterns)`, lineOf("permission"))
  }
  return out
}
