import { Effect } from "effect"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { parseFrontmatter } from "../core/Frontmatter.js"
import { renderWithFrontmatter } from "../core/FrontmatterEdit.js"
import { refuseErrors, type AuthoringParts, type RuleBook } from "../core/RuleBook.js"
import { createSkill, skillNameFromTitle } from "../skill-md/index.js"
import { checkOpenCodeAgent } from "./agentFields.js"

const PREAMBLE = `An OpenCode project keeps its agent files in \`.opencode/\` (a global config directory at its root), in singular or plural directories:
- \`agents/<name>.md\` (or \`agent/\`): an agent named by its file; \`description\` required; \`mode\` (primary, subagent, all), \`model\` (provider/model-id), \`temperature\`, \`tools\` (tool → true/false), \`permission\` (tool → ask/allow/deny); the body is its prompt;
- \`commands/<name>.md\` (or \`command/\`): a command (\`description\`, \`agent\`, \`model\`); \`$ARGUMENTS\` and \`$1\`, \`$2\` … receive the arguments;
- \`skills/<name>/SKILL.md\` (or \`skill/\`): an Agent Skills skill.
akm writes agents, commands and skills, never AGENTS.md or opencode.json.`

const EXAMPLE = `---
description: Reviews code for bugs and style without editing files. Use after a change.
mode: subagent
model: anthropic/claude-sonnet-4-5
temperature: 0.1
tools:
  write: false
  edit: false
---

You review code. …
`

export const OPENCODE_AUTHORING: AuthoringParts = {
  preamble: PREAMBLE,
  examples: [EXAMPLE],
  allowedPaths: [".opencode/agents/<name>.md", ".opencode/commands/<name>.md", ".opencode/skills/<name>/SKILL.md", "agent(s)/<name>.md", "command(s)/<name>.md", "skill(s)/<name>/SKILL.md"],
  constraints: ["never write AGENTS.md or opencode.json", "never overwrite an existing file"]
}

type OpenCodeType = "skill" | "agent" | "command"

/** The directory of a type already in use (singular or plural, .opencode/ or root), else the plural one where the bundle keeps its files. */
const directoryFor = (type: OpenCodeType, ctx: ValidateContext): string => {
  const candidates = [".opencode/", ""].flatMap((prefix) => [`${prefix}${type}s`, `${prefix}${type}`])
  const used = candidates.find((dir) => ctx.files.some((f) => f.path.startsWith(`${dir}/`)))
  if (used !== undefined) return used
  const rootLayout = !ctx.files.some((f) => f.path.startsWith(".opencode/")) && (ctx.exists("opencode.json") || ctx.exists("opencode.jsonc"))
  return `${rootLayout ? "" : ".opencode/"}${type}s`
}

const targetId = (type: OpenCodeType, request: CreateRequest, ctx: ValidateContext): string | AuthoringRefused => {
  if (request.conceptId === undefined) return `${directoryFor(type, ctx)}/${skillNameFromTitle(request.title)}`
  const id = request.conceptId
  const pattern = type === "skill" ? /^(?:\.opencode\/)?skills?\/[^/]+$/ : new RegExp(`^(?:\\.opencode/)?${type}s?/.+$`)
  if (!pattern.test(id) || id.split("/").some((s) => s === "" || s === "." || s === "..")) {
    return new AuthoringRefused(`'${id}' is not where a ${type} lives`, `use ${type}s/<name> or .opencode/${type}s/<name>`)
  }
  return id
}

export const createOpenCodeItem = (book: RuleBook) => (request: CreateRequest, ctx: ValidateContext): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    if (!ctx.bundle.writable) return yield* Effect.fail(new AuthoringRefused(`bundle ${ctx.bundle.name} is read-only`, "create it in a writable bundle"))
    const type = request.type ?? "agent"
    if (type !== "skill" && type !== "agent" && type !== "command") {
      return yield* Effect.fail(new AuthoringRefused(`akm writes agents, commands and skills to an OpenCode project, not '${type}'`, "create an agent, a command or a skill"))
    }
    const id = targetId(type, request, ctx)
    if (id instanceof AuthoringRefused) return yield* Effect.fail(id)
    if (type === "skill") return yield* createSkill(request, ctx, id, book)
    const path = `${id}.md`
    if (ctx.exists(path)) return yield* Effect.fail(new AuthoringRefused(`${path} already exists`, "choose another name, or change the file through a proposal"))
    const { description: _description, ...extra } = request.fields ?? {}
    const after = renderWithFrontmatter({ description: request.description, ...extra }, request.body)
    if (type === "agent") yield* refuseErrors("agent", checkOpenCodeAgent(path, parseFrontmatter(after), book), book)
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after }]
  })
