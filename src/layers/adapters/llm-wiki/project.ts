import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { stringField, stringListField } from "../core/Frontmatter.js"
import { isExternalTarget } from "../core/Markdown.js"
import { documentParts, frontmatterDiagnostics, readMarkdown, type MarkdownDocument } from "../core/MarkdownDocument.js"
import { makeProjection } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import type { WikiKind } from "./layout.js"
import { conceptIdOf, pagesByName, resolvePageLink, resolveSource, sourceTarget, wikilinks } from "./references.js"

const TYPE_OF: Readonly<Record<Exclude<WikiKind, "page">, string>> = { schema: "wiki-schema", raw: "wiki-source", note: "note" }

/** One page index per file list (WeakMap: freed with the scan's context). */
const pageIndexes = new WeakMap<ValidateContext["files"], ReadonlyMap<string, string>>()
const pageIndex = (ctx: ValidateContext): ReadonlyMap<string, string> => {
  const known = pageIndexes.get(ctx.files)
  if (known !== undefined) return known
  const made = pagesByName(ctx.files.map((file) => file.path))
  pageIndexes.set(ctx.files, made)
  return made
}

interface PageLinks {
  readonly links: ReadonlyArray<string>
  readonly sources: ReadonlyArray<string>
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

/** A page's xrefs, wikilinks, body links and sources, resolved; what does not resolve is reported. */
const pageLinks = (path: string, doc: MarkdownDocument, ctx: ValidateContext, book: RuleBook): PageLinks => {
  const data = doc.frontmatter.data
  const lines = doc.frontmatter.keyLines
  const diagnostics: Array<Diagnostic> = []
  const links: Array<string> = []
  const byName = pageIndex(ctx)
  const link = (target: string, line: number | undefined, how: string) => {
    const found = resolvePageLink(path, target, ctx.exists, (slug) => byName.get(slug))
    if (found === undefined) diagnostics.push(...book.report("broken-xref", path, `${how} '${target}' names no file of the wiki`, { line }))
    else links.push(conceptIdOf(found))
  }
  for (const xref of stringListField(data, "xrefs")) link(xref, lines["xrefs"], "xref")
  for (const target of wikilinks(doc.scan.text)) link(target, undefined, "wikilink")
  for (const bodyLink of doc.scan.links) {
    if (!isExternalTarget(bodyLink.target)) link(bodyLink.target, bodyLink.line, "link")
  }
  const sources: Array<string> = []
  const raw = data?.["sources"]
  for (const entry of Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw]) {
    const target = sourceTarget(entry)
    if (target === undefined) {
      diagnostics.push(...book.report("broken-source", path, "a `sources:` entry names no file (write a path under raw/ or a URL)", { line: lines["sources"] }))
      continue
    }
    if (isExternalTarget(target)) continue
    const found = resolveSource(path, target, ctx.exists)
    if (found === undefined) diagnostics.push(...book.report("broken-source", path, `source '${target}' does not exist under raw/`, { line: lines["sources"] }))
    else sources.push(found)
  }
  return { links, sources, diagnostics }
}

export const projectLlmWiki = (item: ItemPlan, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.map(ctx.readText(item.files[0]!), (text) => {
    const path = item.files[0]!
    const kind = (item.kind ?? "note") as WikiKind
    const doc = readMarkdown(text)
    const data = doc.frontmatter.data
    const diagnostics: Array<Diagnostic> = [...frontmatterDiagnostics(path, doc.frontmatter, book)]
    const description = stringField(data, "description")
    const base = { ...documentParts(doc, path), description }
    if (kind !== "page") return { projection: makeProjection({ ...base, type: TYPE_OF[kind] }), diagnostics }
    if (description === undefined && doc.frontmatter.error === undefined) diagnostics.push(...book.report("missing-description", path, "the page has no `description`", { line: 1 }))
    const resolved = pageLinks(path, doc, ctx, book)
    diagnostics.push(...resolved.diagnostics)
    const projection = makeProjection(
      { ...base, type: stringField(data, "pageKind") ?? "note", links: [...resolved.links, ...resolved.sources.map(conceptIdOf)] },
      resolved.sources.length === 0 ? {} : { extra: { sources: [...new Set(resolved.sources)].sort() } }
    )
    return { projection, diagnostics }
  })
