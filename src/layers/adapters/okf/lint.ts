import { Effect, Option } from "effect"
import type { LintItem, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { resolveLink } from "../core/Links.js"
import { readMarkdown } from "../core/MarkdownDocument.js"
import type { RuleBook } from "../core/RuleBook.js"
import { linkedConcept } from "./concepts.js"
import { checkIndexFile, checkLogFile } from "./reservedFiles.js"

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/**
 * Whole-bundle OKF rules: the reserved files' formats (OKF §8, §9, §12) and
 * links to concepts that do not exist. A broken link is a warning at most
 * (OKF §6.1, §11: consumers MUST tolerate it).
 */
export const lintOkfBundle = (book: RuleBook) => (
  ctx: ValidateContext,
  items: ReadonlyArray<LintItem>
): Effect.Effect<ReadonlyArray<Diagnostic>> =>
  Effect.gen(function* () {
    const diagnostics: Array<Diagnostic> = []
    for (const { path } of ctx.files) {
      const name = baseName(path)
      if ((name !== "index.md" && name !== "log.md") || path.split("/").includes(".git")) continue
      const text = yield* Effect.option(ctx.readText(path))
      if (Option.isNone(text)) continue
      if (name === "index.md") {
        const check = checkIndexFile(text.value, path === "index.md")
        for (const problem of check.problems) diagnostics.push(...book.report("invalid-index-format", path, problem.message, { line: problem.line }))
        if (check.unknownVersion) diagnostics.push(...book.report("unknown-okf-version", path, `okf_version "${check.okfVersion}" is not a version this reader knows (0.1, 0.2); reading it best-effort`, { line: check.okfVersionLine }))
      } else {
        for (const problem of checkLogFile(text.value)) diagnostics.push(...book.report("invalid-log-format", path, problem.message, { line: problem.line }))
      }
    }

    // Projections carry link targets as concept ids; only files with a missing target are read again, for line numbers.
    for (const { plan, projection } of items) {
      const missing = new Set((projection.links ?? []).filter((id) => !ctx.exists(`${id}.md`)))
      if (missing.size === 0) continue
      const path = plan.files[0]!
      const text = yield* Effect.option(ctx.readText(path))
      if (Option.isNone(text)) continue
      for (const link of readMarkdown(text.value).scan.links) {
        const conceptId = linkedConcept(resolveLink(path, link.target))
        if (conceptId !== undefined && missing.has(conceptId)) {
          diagnostics.push(...book.report("dangling-link", path, `link to ${link.target}: ${conceptId}.md does not exist`, { line: link.line }))
        }
      }
    }
    return diagnostics
  })
