import { Effect } from "effect"
import type { FileUnreadable, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { parseFrontmatter, type Frontmatter } from "../core/Frontmatter.js"
import { scanMarkdown, type MarkdownScan } from "../core/Markdown.js"
import type { RuleBook } from "./ruleBook.js"

export interface MarkdownFile {
  readonly text: string
  readonly frontmatter: Frontmatter
  readonly scan: MarkdownScan
  /** `invalid-frontmatter` when the block is malformed; the file is still projected from what parses. */
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

/** Reads one markdown file with optional frontmatter (instructions, commands, agents). */
export const readMarkdownFile = (path: string, ctx: ValidateContext, book: RuleBook): Effect.Effect<MarkdownFile, FileUnreadable> =>
  Effect.map(ctx.readText(path), (text) => {
    const frontmatter = parseFrontmatter(text)
    const diagnostics = frontmatter.error === undefined ? [] : book.report("invalid-frontmatter", path, `invalid frontmatter: ${frontmatter.error.message}`, { line: frontmatter.error.line })
    return { text, frontmatter, scan: scanMarkdown(frontmatter.body, frontmatter.bodyLine - 1), diagnostics }
  })

/** A first paragraph short enough to serve as a description. */
export const shortParagraph = (text: string | undefined): string | undefined =>
  text === undefined ? undefined : text.length <= 300 ? text : `${text.slice(0, 299).trimEnd()}…`
