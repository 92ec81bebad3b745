import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { stringField, stringListField } from "../core/Frontmatter.js"
import { makeProjection, metadataHints } from "../core/Projection.js"
import { projectCommandFile, projectInstructionFile } from "../skill-md/hostDocuments.js"
import { readMarkdownFile } from "../skill-md/markdownFile.js"
import { basenameOf, withoutMarkdownExtension } from "../skill-md/paths.js"
import type { RuleBook } from "../skill-md/ruleBook.js"
import { projectReference, projectSkill, REFERENCE_KIND, SKILL_KIND } from "../skill-md/skillDirectory.js"
import { checkClaudeAgent, claudeModelProblem } from "./agentFields.js"
import { claudeImports } from "./imports.js"
import { CLAUDE_SKILL_PARENTS } from "./plan.js"

/** A subagent: name, description, tools, model; the body is its system prompt. */
const projectAgent = (item: ItemPlan, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const path = item.files[0]!
    const file = yield* readMarkdownFile(path, ctx, book)
    const { frontmatter: fm, scan } = file
    const tools = stringListField(fm.data, "tools")
    const skills = stringListField(fm.data, "skills")
    const model = stringField(fm.data, "model")
    const projection = makeProjection(
      {
        type: "agent",
        name: stringField(fm.data, "name") ?? withoutMarkdownExtension(basenameOf(path)),
        description: stringField(fm.data, "description"),
        hints: [...tools, ...skills, ...metadataHints(fm.data, ["model", "permissionMode"])],
        outline: scan.headings,
        content: scan.text
      },
      {
        extra: {
          ...(tools.length === 0 ? {} : { tools }),
          ...(skills.length === 0 ? {} : { skills }),
          ...(model === undefined ? {} : { model })
        }
      }
    )
    return { projection, diagnostics: [...file.diagnostics, ...checkClaudeAgent(path, fm, book)] }
  })

export const projectClaudeItem = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> => {
  switch (item.kind) {
    case SKILL_KIND:
      return projectSkill(item, ctx, { book, parents: CLAUDE_SKILL_PARENTS })
    case REFERENCE_KIND:
      return projectReference(item, ctx, { book, parents: CLAUDE_SKILL_PARENTS })
    case "command":
      return projectCommandFile(item, ctx, book, { modelProblem: claudeModelProblem(book) })
    case "agent":
      return projectAgent(item, ctx, book)
    default:
      return projectInstructionFile(item, ctx, book, { textReferences: claudeImports })
  }
}

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
