import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import { stringField } from "../core/Frontmatter.js"
import { makeProjection, metadataHints } from "../core/Projection.js"
import { projectCommandFile, projectInstructionFile } from "../skill-md/hostDocuments.js"
import { readMarkdownFile } from "../skill-md/markdownFile.js"
import { basenameOf, withoutMarkdownExtension } from "../skill-md/paths.js"
import type { RuleBook } from "../skill-md/ruleBook.js"
import { projectReference, projectSkill, REFERENCE_KIND, SKILL_KIND } from "../skill-md/skillDirectory.js"
import { checkOpenCodeAgent, openCodeModelProblem } from "./agentFields.js"
import { OPENCODE_SKILL_PARENTS } from "./plan.js"

/** An agent: named by its file; description, mode, model; the body is its prompt. */
const projectAgent = (item: ItemPlan, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const path = item.files[0]!
    const file = yield* readMarkdownFile(path, ctx, book)
    const { frontmatter: fm, scan } = file
    const mode = stringField(fm.data, "mode")
    const model = stringField(fm.data, "model")
    const tools = fm.data?.["tools"]
    const projection = makeProjection(
      {
        type: "agent",
        name: withoutMarkdownExtension(basenameOf(path)),
        description: stringField(fm.data, "description"),
        hints: metadataHints(fm.data, ["mode", "model"]),
        outline: scan.headings,
        content: scan.text
      },
      {
        extra: {
          ...(mode === undefined ? {} : { mode }),
          ...(model === undefined ? {} : { model }),
          ...(tools !== null && typeof tools === "object" && !Array.isArray(tools) ? { tools } : {})
        }
      }
    )
    return { projection, diagnostics: [...file.diagnostics, ...checkOpenCodeAgent(path, fm, book)] }
  })

export const projectOpenCodeItem = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> => {
  switch (item.kind) {
    case SKILL_KIND:
      return projectSkill(item, ctx, { book, parents: OPENCODE_SKILL_PARENTS })
    case REFERENCE_KIND:
      return projectReference(item, ctx, { book, parents: OPENCODE_SKILL_PARENTS })
    case "command":
      return projectCommandFile(item, ctx, book, { modelProblem: openCodeModelProblem })
    case "agent":
      return projectAgent(item, ctx, book)
    default:
      return projectInstructionFile(item, ctx, book)
  }
}
