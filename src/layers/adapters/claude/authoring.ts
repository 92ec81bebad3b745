import { Effect } from "effect"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { parseFrontmatter } from "../core/Frontmatter.js"
import { renderWithFrontmatter } from "../core/FrontmatterEdit.js"
import { refuseErrors, type AuthoringParts, type RuleBook } from "../core/RuleBook.js"
import { createSkill, skillNameFromTitle } from "../skill-md/index.js"
import { checkClaudeAgent } from "./agentFields.js"

const PREAMBLE = `A Claude Code bundle is a project's \`.claude/\` directory or a plugin directory:
- \`skills/<name>/SKILL.md\`: a skill (Agent Skills frontmatter plus Claude Code's keys such as \`when_to_use\`, \`argument-hint\`, \`disable-model-invocation\`, \`user-invocable\`, \`model\`, \`context\`, \`agent\`, \`hooks\`, \`paths\`, \`shell\`);
- \`agents/<name>.md\`: a subagent (\`name\`, \`description\` required; \`tools\`, \`model\`, \`permissionMode\`, \`maxTurns\`, \`skills\`, \`mcpServers\`, \`hooks\`, \`memory\`, \`color\` …); the body is its system prompt;
- \`commands/<name>.md\`: a slash command (\`description\`, \`argument-hint\`, \`allowed-tools\`, \`model\`); \`$ARGUMENTS\` and \`$1\`, \`$2\` … in the body receive the arguments.
In a project these live under \`.claude/\`; in a plugin at the root. akm writes skills, subagents and commands, never CLAUDE.md or settings.`

const EXAMPLES = [
  `---
name: code-reviewer
description: Reviews a diff for correctness and style. Use after changing code and before committing.
tools: Read, Grep, Glob
model: sonnet
---

You are a careful code reviewer. …
`,
  `---
description: Deploy the current branch to an environment
argument-hint: <environment>
allowed-tools: Bash(git:*), Bash(make deploy:*)
---

Deploy to $ARGUMENTS: run \`make deploy ENV=$1\` and report the result.
`
]

export const CLAUDE_AUTHORING: AuthoringParts = {
  preamble: PREAMBLE,
  examples: EXAMPLES,
  allowedPaths: ["skills/<name>/SKILL.md", "agents/<name>.md", "commands/<name>.md", ".claude/skills/<name>/SKILL.md", ".claude/agents/<name>.md", ".claude/commands/**/<name>.md"],
  constraints: ["never write CLAUDE.md, settings.json or other tool configuration", "never overwrite an existing file"]
}

type ClaudeType = "skill" | "agent" | "command"

const DIRS: Readonly<Record<ClaudeType, string>> = { skill: "skills", agent: "agents", command: "commands" }

/** Where new files go when the request names no concept id: `.claude/` in a project, the root in a plugin or a `.claude` folder itself. */
const layoutPrefix = (ctx: ValidateContext): string => {
  const rootLayout = ctx.exists(".claude-plugin/plugin.json") || ctx.files.some((f) => /^(?:commands|agents|skills)\//.test(f.path))
  return !rootLayout && ctx.files.some((f) => f.path.startsWith(".claude/")) ? ".claude/" : ""
}

/** The bundle-relative id for the request: the given concept id (checked against the type's directory) or `<prefix><dir>/<name from title>`. */
const targetId = (type: ClaudeType, request: CreateRequest, ctx: ValidateContext): string | AuthoringRefused => {
  const dir = DIRS[type]
  if (request.conceptId === undefined) return `${layoutPrefix(ctx)}${dir}/${skillNameFromTitle(request.title)}`
  const id = request.conceptId
  const pattern = type === "skill" ? /^(?:\.claude\/)?skills\/[^/]+$/ : new RegExp(`^(?:\\.claude/)?${dir}/.+$`)
  if (!pattern.test(id) || id.split("/").some((s) => s === "" || s === "." || s === "..")) {
    return new AuthoringRefused(`'${id}' is not where a ${type} lives`, `use ${dir}/<name> or .claude/${dir}/<name>`)
  }
  return id
}

const refuseIfExists = (ctx: ValidateContext, path: string): Effect.Effect<void, AuthoringRefused> =>
  ctx.exists(path) ? Effect.fail(new AuthoringRefused(`${path} already exists`, "choose another name, or change the file through a proposal")) : Effect.void

export const createClaudeItem = (book: RuleBook) => (request: CreateRequest, ctx: ValidateContext): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    if (!ctx.bundle.writable) return yield* Effect.fail(new AuthoringRefused(`bundle ${ctx.bundle.name} is read-only`, "create it in a writable bundle"))
    const type = request.type ?? "skill"
    if (type !== "skill" && type !== "agent" && type !== "command") {
      return yield* Effect.fail(new AuthoringRefused(`akm writes skills, agents and commands to a Claude Code bundle, not '${type}'`, "create a skill, an agent or a command"))
    }
    const id = targetId(type, request, ctx)
    if (id instanceof AuthoringRefused) return yield* Effect.fail(id)
    if (type === "skill") return yield* createSkill(request, ctx, id, book)
    const path = `${id}.md`
    yield* refuseIfExists(ctx, path)
    const name = id.slice(id.lastIndexOf("/") + 1)
    const { name: _name, description: _description, ...extra } = request.fields ?? {}
    if (type === "command") {
      return [{ bundle: ctx.bundle.name, path, beforeHash: null, after: renderWithFrontmatter({ description: request.description, ...extra }, request.body) }]
    }
    const after = renderWithFrontmatter({ name, description: request.description, ...extra }, request.body)
    yield* refuseErrors("subagent", checkClaudeAgent(path, parseFrontmatter(after), book), book)
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after }]
  })
