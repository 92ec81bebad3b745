import { Effect, Option } from "effect"
import type { ItemPlan, Projection, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { parseFrontmatter } from "../core/Frontmatter.js"
import { scanMarkdown } from "../core/Markdown.js"
import { resolveLink } from "./links.js"
import { checkIndexFile, checkLogFile } from "./reservedFiles.js"
import type { RuleBook } from "./ruleBook.js"

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/**
 * Whole-bundle OKF rules: the reserved files' formats (OKF §8, §9, §12) and
 * links to concepts that do not exist. A broken link is a warning at most
 * (OKF §6.1, §11: consumers MUST tolerate it).
 */
export const lintOkfBundle = (book: RuleBook) => (
  ctx: ValidateContext,
  items: ReadonlyArray<{ readonly plan: ItemPlan; readonly projection: Projection }>
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
        for (const problem of check.problems) diagnostics.push(...book.diagnostic("invalid-index-format", { path, ...problem }))
        if (check.unknownVersion) diagnostics.push(...book.diagnostic("unknown-okf-version", { path, message: `okf_version "${check.okfVersion}" is not a version this reader knows (0.1, 0.2); reading it best-effort`, line: check.okfVersionLine }))
      } else {
        for (const problem of checkLogFile(text.value)) diagnostics.push(...book.diagnostic("invalid-log-format", { path, ...problem }))
      }
    }

    // Projections carry link targets as concept ids; only files with a missing target are read again, for line numbers.
    for (const { plan, projection } of items) {
      const missing = new Set((projection.links ?? []).filter((id) => !ctx.exists(`${id}.md`)))
      if (missing.size === 0) continue
      const path = plan.files[0]!
      const text = yield* Effect.option(ctx.readText(path))
      if (Option.isNone(text)) continue
      const frontmatter = parseFrontmatter(text.value)
      for (const link of scanMarkdown(frontmatter.body, frontmatter.bodyLine - 1).links) {
        const target = resolveLink(path, link.target)
        if (target.kind === "concept" && missing.has(target.conceptId)) {
          diagnostics.push(...book.diagnostic("dangling-link", { path, message: `link to ${link.target}: ${target.path} does not exist`, line: link.line }))
        }
      }
    }
    return diagnostics
  })
