import { Effect, Either } from "effect"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { headingSlug, validateConceptId } from "../../../domain/Ref.js"
import { renderWithFrontmatter } from "../core/FrontmatterEdit.js"
import { readMarkdown } from "../core/MarkdownDocument.js"
import type { AuthoringParts, RuleBook } from "../core/RuleBook.js"
import { checkWorkflow, type WorkflowCheck } from "./workflowDocument.js"

const PREAMBLE = `A workflow is a markdown file with \`type: workflow\` frontmatter that declares its steps and typed params,
and one \`## <step-id>\` section per step in the body. Indexing never runs a workflow; \`akm workflow run\` does, on request.`

export const WORKFLOW_EXAMPLE = `---
type: workflow
description: Cut a release from main after the checks pass
params:
  version: {type: string, description: "the version to release, e.g. 1.4.0"}
steps:
  - check
  - tag
---

# Release

## check

Run the test suite and the linter on main.

### gate

\`npm test\` exits 0.

## tag

Tag main with v{{version}} and push the tag.
`

export const AKM_WORKFLOW_AUTHORING: AuthoringParts = {
  preamble: PREAMBLE,
  examples: [WORKFLOW_EXAMPLE],
  allowedPaths: ["*.md", "**/*.md"],
  constraints: ["one ## section per declared step, nothing else at ##", "every param has a type"]
}

const stepIdsOf = (request: CreateRequest, bodySteps: ReadonlyArray<string>): ReadonlyArray<string> => {
  const declared = request.fields?.["steps"]
  if (Array.isArray(declared)) return declared.map((step: unknown) => (typeof step === "string" ? step : String((step as { id?: unknown } | null)?.id ?? "")))
  return bodySteps.length > 0 ? bodySteps : ["run"]
}

/**
 * Renders a workflow skeleton: `fields.steps` (or the body's `##` headings,
 * or a single `run` step) declared in frontmatter, one section per step,
 * `fields.params`/`defaults`/`budget` passed through. The result must pass
 * the same checks the validator runs, or the request is refused.
 */
export const renderWorkflow = (request: CreateRequest, book: RuleBook, codeFor: (check: WorkflowCheck) => string = (check) => check): Either.Either<string, AuthoringRefused> => {
  const bodySections = readMarkdown(request.body).scan.headings.filter((h) => h.depth === 2).map((h) => h.text)
  const steps = stepIdsOf(request, bodySections)
  let body: string
  if (bodySections.length > 0) body = request.body.trim()
  else if (steps.length === 1) body = `## ${steps[0]}\n\n${request.body.trim() === "" ? `Describe what the ${steps[0]} step does.` : request.body.trim()}`
  else body = [request.body.trim(), ...steps.map((step) => `## ${step}\n\nDescribe what the ${step} step does.`)].filter((part) => part !== "").join("\n\n")
  const fields = request.fields ?? {}
  const text = renderWithFrontmatter(
    {
      type: "workflow",
      description: request.description,
      params: fields["params"],
      steps: fields["steps"] ?? steps,
      defaults: fields["defaults"],
      budget: fields["budget"]
    },
    `# ${request.title}\n\n${body}\n`
  )
  const doc = readMarkdown(text)
  const problems = checkWorkflow(doc.frontmatter, doc.scan).findings.filter((finding) => book.report(codeFor(finding.check), "", finding.message).some((d) => d.severity === "error"))
  if (problems.length > 0) {
    return Either.left(new AuthoringRefused(`the workflow would be invalid: ${problems.map((p) => p.message).join("; ")}`, "declare fields.steps to match the body's ## sections and give every param a type"))
  }
  return Either.right(text)
}

/** Creates `<id>.md`; refuses an existing target or an id that is not a ref. */
export const createWorkflow = (request: CreateRequest, ctx: ValidateContext, book: RuleBook): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    const conceptId = (request.conceptId ?? headingSlug(request.title)).replace(/\.md$/, "")
    if (Either.isLeft(validateConceptId(conceptId))) return yield* Effect.fail(new AuthoringRefused(`'${conceptId}' is not a valid concept id`, "use a path such as release or ops/release"))
    const path = `${conceptId}.md`
    if (ctx.exists(path)) return yield* Effect.fail(new AuthoringRefused(`${conceptId} already exists`, "choose another name, or edit the existing workflow"))
    const text = yield* renderWorkflow(request, book)
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after: text }]
  })
