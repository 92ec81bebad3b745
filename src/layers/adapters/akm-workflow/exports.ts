import { Effect } from "effect"
import type { ValidateContext } from "../../../domain/Adapter.js"
import type { RuntimeExport } from "../../../domain/RuntimeExport.js"
import { textExport, exportOfFile } from "../dotenv/envExports.js"
import { readMarkdown } from "../core/MarkdownDocument.js"
import { checkWorkflow } from "./workflowDocument.js"
import { isWorkflowText } from "./probe.js"

/**
 * A workflow file as a runtime export (spec 07 §1–§2): the digest of its
 * bytes, its params, and — when it lints clean — the plan a run freezes.
 */
export const workflowExport = (bundle: string, conceptId: string, text: string): RuntimeExport => {
  const doc = readMarkdown(text)
  const shape = checkWorkflow(doc.frontmatter, doc.scan)
  const exported = textExport(bundle, conceptId, "workflow", text, { params: shape.params.map((param) => param.name) })
  return shape.plan === undefined ? exported : { ...exported, plan: shape.plan }
}

/** Every `.md` with `type: workflow` of an akm-workflow bundle. */
export const akmWorkflowExports = (ctx: ValidateContext): Effect.Effect<ReadonlyArray<RuntimeExport>> =>
  Effect.map(
    Effect.forEach(ctx.files.filter((file) => file.path.endsWith(".md")), (file) =>
      Effect.map(
        exportOfFile(ctx, file.path, (text) => workflowExport(ctx.bundle.name, file.path.slice(0, -".md".length), text)),
        (exports) => exports.filter((e) => isWorkflowText(e.definition))
      )),
    (lists) => lists.flat()
  )
