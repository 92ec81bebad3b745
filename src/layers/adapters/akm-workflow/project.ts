import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { stringField } from "../core/Frontmatter.js"
import { resolveLinkPath } from "../core/Links.js"
import { documentParts, frontmatterDiagnostics, readMarkdown } from "../core/MarkdownDocument.js"
import { makeProjection } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { checkWorkflow, workflowDiagnostics, workflowHints } from "./workflowDocument.js"

/**
 * A `.md` with `type: workflow` is a workflow and gets the structure checks;
 * any other markdown in the bundle keeps its own `type` (or `knowledge`).
 */
export const projectWorkflowFile = (path: string, text: string, book: RuleBook): ProjectResult => {
  const doc = readMarkdown(text)
  const data = doc.frontmatter.data
  const diagnostics: Array<Diagnostic> = [...frontmatterDiagnostics(path, doc.frontmatter, book)]
  const type = stringField(data, "type") ?? "knowledge"
  const description = stringField(data, "description")
  let hints: ReadonlyArray<string> = []
  let extra = {}
  if (type === "workflow") {
    const shape = checkWorkflow(doc.frontmatter, doc.scan)
    diagnostics.push(...workflowDiagnostics(path, shape, book))
    if (description === undefined && doc.frontmatter.error === undefined) diagnostics.push(...book.report("missing-description", path, "the workflow has no `description`", { line: 1 }))
    hints = workflowHints(shape)
    extra = { extra: { steps: shape.steps.map((step) => step.id), params: shape.params.map((param) => param.name) } }
  }
  const projection = makeProjection(
    {
      ...documentParts(doc, path),
      type,
      description,
      hints,
      links: doc.scan.links.flatMap((link) => {
        const target = resolveLinkPath(path, link.target)
        return target === undefined ? [] : [target.replace(/\.md$/, "")]
      })
    },
    extra
  )
  return { projection, diagnostics }
}

export const projectAkmWorkflow = (item: ItemPlan, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.map(ctx.readText(item.files[0]!), (text) => projectWorkflowFile(item.files[0]!, text, book))
