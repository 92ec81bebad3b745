import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import { normalizeText, stringField, stringListField } from "../core/Frontmatter.js"
import { capBytes } from "../core/Markdown.js"
import { frontmatterDiagnostics, readMarkdown } from "../core/MarkdownDocument.js"
import { makeProjection, nameFromFile } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { extensionOf } from "./kinds.js"
import { readScriptHeader } from "./scriptHeader.js"

const fileName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/** The first block of non-blank lines, on one line. */
const firstParagraph = (text: string): string | undefined => {
  const block = text.trim().split(/\n\s*\n/)[0]?.replace(/\s+/g, " ").trim()
  return block === "" ? undefined : block
}

/**
 * Markdown → `document`: frontmatter `title`, else the first level-1 heading
 * (a leading `## Decisions` names a section, not the document), else the file
 * name; body text as content.
 */
const projectMarkdown = (book: RuleBook, path: string, source: string): ProjectResult => {
  const { frontmatter, scan } = readMarkdown(source)
  const projection = makeProjection({
    type: "document",
    name: stringField(frontmatter.data, "title") ?? scan.title ?? nameFromFile(path),
    description: stringField(frontmatter.data, "description") ?? scan.firstParagraph,
    tags: stringListField(frontmatter.data, "tags"),
    outline: scan.headings,
    content: scan.text
  })
  return { projection, diagnostics: frontmatterDiagnostics(path, frontmatter, book) }
}

const projectText = (path: string, source: string): ProjectResult => {
  const text = normalizeText(source)
  return { projection: makeProjection({ type: "document", name: nameFromFile(path), description: firstParagraph(text), content: capBytes(text) }), diagnostics: [] }
}

const projectScript = (path: string, source: string): ProjectResult => {
  const header = readScriptHeader(source, extensionOf(path))
  const projection = makeProjection({
    type: "script",
    name: nameFromFile(path),
    description: header.description,
    tags: header.tags,
    hints: [fileName(path)],
    content: capBytes(header.text)
  })
  return { projection, diagnostics: [] }
}

/**
 * One file → its projection (spec 03 "generic-files"). Opaque files and
 * secrets are never read: their name is all that is indexed.
 */
export const projectFile = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> => {
  const path = item.files[0]!
  // Env and credential files: the name is the whole item (R-DB-2); show and curate print no value for type secret.
  if (item.kind === "secret") return Effect.succeed({ projection: makeProjection({ type: "secret", name: fileName(path) }), diagnostics: [] })
  if (item.kind === "file") {
    return Effect.succeed({ projection: makeProjection({ type: "file", name: nameFromFile(path), hints: [fileName(path)] }), diagnostics: [] })
  }
  return Effect.map(ctx.readText(path), (source) =>
    item.kind === "markdown" ? projectMarkdown(book, path, source) : item.kind === "script" ? projectScript(path, source) : projectText(path, source)
  )
}
