import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { stringField, stringListField } from "../core/Frontmatter.js"
import { resolveLink } from "../core/Links.js"
import { frontmatterDiagnostics, readMarkdown } from "../core/MarkdownDocument.js"
import { makeProjection, nameFromFile } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { linkedConcept } from "./concepts.js"
import { readProvenance } from "./provenance.js"

/** The type of a concept that has none (spec 03: OKF is the lenient markdown baseline). */
export const DEFAULT_TYPE = "knowledge"

const ATTESTED_COMPUTATION = "attested computation"

/** The concept's `type` when it is a usable label: a non-empty string (or a number, written unquoted). */
const typeOf = (data: Readonly<Record<string, unknown>> | undefined): string | undefined =>
  typeof data?.type === "string" || typeof data?.type === "number" ? stringField(data, "type") : undefined

/**
 * One concept → its projection (spec 03 "okf"): `type` verbatim, name from
 * `title` else the file name, body links to other concepts as concept ids,
 * provenance and lifecycle into `status`/`staleAfter`/`updated`/`extra`.
 */
export const projectConcept = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const path = item.files[0]!
    const { frontmatter, scan } = readMarkdown(yield* ctx.readText(path))
    const data = frontmatter.data
    const diagnostics: Array<Diagnostic> = [...frontmatterDiagnostics(path, frontmatter, book)]

    const type = typeOf(data)
    if (frontmatter.error === undefined && !frontmatter.present) {
      diagnostics.push(...book.report("okf-nonconformant", path, "the concept has no frontmatter block; OKF requires one with a non-empty `type`", { line: 1 }))
    } else if (frontmatter.error === undefined && type === undefined) {
      const message = data?.type === undefined ? "the frontmatter has no `type`; OKF requires a non-empty one" : "`type` is empty or not a string; OKF requires a non-empty one"
      diagnostics.push(...book.report("okf-nonconformant", path, message, { line: frontmatter.keyLines.type ?? 1 }))
    }
    if (type === undefined && frontmatter.error === undefined) {
      diagnostics.push(...book.report("missing-type", path, `no \`type\`; indexed as \`${DEFAULT_TYPE}\``, { line: frontmatter.keyLines.type ?? 1 }))
    }
    if (type !== undefined && type.toLowerCase() === ATTESTED_COMPUTATION && stringField(data, "runtime") === undefined) {
      diagnostics.push(...book.report("missing-runtime", path, "an Attested Computation needs a `runtime` (OKF §10.2)", { line: frontmatter.keyLines.type }))
    }

    const provenance = readProvenance(data ?? {}, frontmatter.keyLines)
    for (const problem of provenance.problems) diagnostics.push(...book.report("invalid-provenance", path, problem.message, { line: problem.line }))

    const links: Array<string> = []
    for (const link of scan.links) {
      const target = resolveLink(path, link.target)
      const conceptId = linkedConcept(target)
      if (conceptId !== undefined) links.push(conceptId)
      else if (target.kind === "outside") diagnostics.push(...book.report("dangling-link", path, `link to ${link.target} leaves the bundle`, { line: link.line }))
    }

    const resource = stringField(data, "resource")
    const runtime = stringField(data, "runtime")
    const projection = makeProjection(
      {
        type: type ?? DEFAULT_TYPE,
        name: stringField(data, "title") ?? nameFromFile(path),
        description: stringField(data, "description"),
        tags: stringListField(data, "tags"),
        hints: [...(resource === undefined ? [] : [resource]), ...provenance.sourceTitles, ...(runtime === undefined ? [] : [runtime])],
        outline: scan.headings,
        content: scan.text,
        links
      },
      {
        status: provenance.status,
        ...(provenance.staleAfter === undefined ? {} : { staleAfter: provenance.staleAfter }),
        ...(provenance.updated === undefined ? {} : { updated: provenance.updated }),
        extra: { ...(resource === undefined ? {} : { resource }), ...provenance.fields }
      }
    )
    return { projection, diagnostics }
  })
