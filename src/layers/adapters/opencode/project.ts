import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import { stringField } from "../core/Frontmatter.js"
import { basenameOf, withoutMarkdownExtension } from "../core/Paths.js"
import { metadataHints } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { projectAgentFile, projectCommandFile, projectInstructionFile, projectSkillItem, type AgentOptions } from "../skill-md/index.js"
import { checkOpenCodeAgent, openCodeModelProblem } from "./agentFields.js"
import { OPENCODE_SKILL_PARENTS } from "./plan.js"

/** An agent: named by its file; description, mode, model; the body is its prompt. */
const AGENT: AgentOptions = {
  name: (_fm, path) => withoutMarkdownExtension(basenameOf(path)),
  hints: (fm) => metadataHints(fm.data, ["mode", "model"]),
  extra: (fm) => {
    const mode = stringField(fm.data, "mode")
    const model = stringField(fm.data, "model")
    const tools = fm.data?.["tools"]
    return {
      ...(mode === undefined ? {} : { mode }),
      ...(model === undefined ? {} : { model }),
      ...(tools !== null && typeof tools === "object" && !Array.isArray(tools) ? { tools } : {})
    }
  },
  check: checkOpenCodeAgent
}

export const projectOpenCodeItem = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> =>
  projectSkillItem(item, ctx, { book, parents: OPENCODE_SKILL_PARENTS }) ??
    (item.kind === "command" ? projectCommandFile(item, ctx, book, { modelProblem: openCodeModelProblem })
    : item.kind === "agent" ? projectAgentFile(item, ctx, book, AGENT)
    : projectInstructionFile(item, ctx, book))
