import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { stringField, stringListField, type Frontmatter } from "../core/Frontmatter.js"
import { basenameOf, withoutMarkdownExtension } from "../core/Paths.js"
import { metadataHints } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { projectAgentFile, projectCommandFile, projectInstructionFile, projectSkillItem, type AgentOptions } from "../skill-md/index.js"
import { checkClaudeAgent, claudeModelProblem } from "./agentFields.js"
import { claudeImports } from "./imports.js"
import { CLAUDE_SKILL_PARENTS } from "./plan.js"

/** A subagent: named by `name` (else its file), tools, skills and model as hints; the body is its system prompt. */
const SUBAGENT: AgentOptions = {
  name: (fm: Frontmatter, path: string) => stringField(fm.data, "name") ?? withoutMarkdownExtension(basenameOf(path)),
  hints: (fm) => [...stringListField(fm.data, "tools"), ...stringListField(fm.data, "skills"), ...metadataHints(fm.data, ["model", "permissionMode"])],
  extra: (fm) => {
    const tools = stringListField(fm.data, "tools")
    const skills = stringListField(fm.data, "skills")
    const model = stringField(fm.data, "model")
    return { ...(tools.length === 0 ? {} : { tools }), ...(skills.length === 0 ? {} : { skills }), ...(model === undefined ? {} : { model }) }
  },
  check: checkClaudeAgent
}

export const projectClaudeItem = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> =>
  projectSkillItem(item, ctx, { book, parents: CLAUDE_SKILL_PARENTS }) ??
    (item.kind === "command" ? projectCommandFile(item, ctx, book, { modelProblem: claudeModelProblem(book) })
    : item.kind === "agent" ? projectAgentFile(item, ctx, book, SUBAGENT)
    : projectInstructionFile(item, ctx, book, { textReferences: claudeImports }))

/** The plugin manifest is configuration, never an item, but a broken one stops Claude Code loading the plugin. */
export const lintClaudeBundle = (book: RuleBook) => (ctx: ValidateContext): Effect.Effect<ReadonlyArray<Diagnostic>> =>
  Effect.gen(function* () {
    const path = ".claude-plugin/plugin.json"
    if (!ctx.exists(path)) return []
    const text = yield* Effect.orElseSucceed(ctx.readText(path), () => undefined)
    if (text === undefined) return book.report("invalid-plugin-manifest", path, "the plugin manifest cannot be read")
    let manifest: unknown
    try {
      manifest = JSON.parse(text)
    } catch (error) {
      return book.report("invalid-plugin-manifest", path, `the plugin manifest is not valid JSON: ${(error as Error).message}`)
    }
    if (manifest === null || typeof manifest !== "object" || Array.isArray(manifest)) return book.report("invalid-plugin-manifest", path, "the plugin manifest must be a JSON object")
    const name = (manifest as Record<string, unknown>)["name"]
    if (typeof name !== "string" || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name)) {
      return book.report("invalid-plugin-manifest", path, typeof name === "string" ? `plugin name '${name}' must be kebab-case` : "the plugin manifest has no `name`")
    }
    return []
  })
