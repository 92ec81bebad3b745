import { Effect } from "effect"
import type { FileUnreadable, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { parseFrontmatter, stringField, stringListField, type Frontmatter } from "./Frontmatter.js"
import { scanMarkdown, type MarkdownScan } from "./Markdown.js"
import { nameFromFile } from "./Projection.js"
import type { RuleBook } from "./RuleBook.js"

/** A markdown file read once: frontmatter plus the token scan of its body (lines are file lines). */
export interface MarkdownDocument {
  readonly frontmatter: Frontmatter
  readonly scan: MarkdownScan
}

export const readMarkdown = (text: string): MarkdownDocument => {
  const frontmatter = parseFrontmatter(text)
  return { frontmatter, scan: scanMarkdown(frontmatter.body, frontmatter.bodyLine - 1) }
}

/** `invalid-frontmatter` for a malformed block; the caller still indexes what it can salvage (spec 03 §1.1). */
export const frontmatterDiagnostics = (path: string, frontmatter: Frontmatter, book: RuleBook): ReadonlyArray<Diagnostic> =>
  frontmatter.error === undefined
    ? []
    : book.report("invalid-frontmatter", path, `the frontmatter cannot be parsed: ${frontmatter.error.message}`, { line: frontmatter.error.line })

export interface MarkdownFile extends MarkdownDocument {
  readonly text: string
  /** `invalid-frontmatter` when the block is malformed. */
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

/** Reads one markdown file with optional frontmatter through the context. */
export const readMarkdownFile = (path: string, ctx: ValidateContext, book: RuleBook): Effect.Effect<MarkdownFile, FileUnreadable> =>
  Effect.map(ctx.readText(path), (text) => {
    const doc = readMarkdown(text)
    return { ...doc, text, diagnostics: frontmatterDiagnostics(path, doc.frontmatter, book) }
  })

/** `title`, else `name`, else the first `# heading`, else the file name. */
export const displayName = (doc: MarkdownDocument, path: string): string =>
  stringField(doc.frontmatter.data, "title") ?? stringField(doc.frontmatter.data, "name") ?? doc.scan.title ?? nameFromFile(path)

/** The searchable fields every markdown item shares: its display name, frontmatter `tags` and `aliases`, outline and body text. */
export const documentParts = (doc: MarkdownDocument, path: string) => ({
  name: displayName(doc, path),
  tags: stringListField(doc.frontmatter.data, "tags"),
  aliases: stringListField(doc.frontmatter.data, "aliases"),
  outline: doc.scan.headings,
  content: doc.scan.text
})

/** A first paragraph short enough to serve as a description. */
export const shortParagraph = (text: string | undefined): string | undefined =>
  text === undefined ? undefined : text.length <= 300 ? text : `${text.slice(0, 299).trimEnd()}…`
