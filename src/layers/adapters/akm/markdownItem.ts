import { posix } from "node:path"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { parseFrontmatter, stringField, type Frontmatter } from "../core/Frontmatter.js"
import { isExternalTarget, scanMarkdown, type MarkdownScan } from "../core/Markdown.js"
import { nameFromFile } from "../core/Projection.js"
import type { RuleBook } from "./ruleBook.js"

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
export const frontmatterDiagnostics = (path: string, doc: MarkdownDocument, book: RuleBook): ReadonlyArray<Diagnostic> =>
  doc.frontmatter.error === undefined
    ? []
    : book.report("invalid-frontmatter", path, `the frontmatter cannot be parsed: ${doc.frontmatter.error.message}`, { line: doc.frontmatter.error.line })

/** `title`, else `name`, else the first `# heading`, else the file name. */
export const displayName = (doc: MarkdownDocument, path: string): string =>
  stringField(doc.frontmatter.data, "title") ?? stringField(doc.frontmatter.data, "name") ?? doc.scan.title ?? nameFromFile(path)

/**
 * A body link's bundle-relative target path, or undefined for external
 * targets, in-page anchors and paths that leave the bundle.
 */
export const resolveLinkPath = (fromPath: string, target: string): string | undefined => {
  if (isExternalTarget(target)) return undefined
  let clean = target.replace(/[#?].*$/, "").trim()
  if (clean === "") return undefined
  try {
    clean = decodeURI(clean)
  } catch {
    // A malformed escape is kept as written.
  }
  const joined = clean.startsWith("/") ? clean.slice(1) : posix.join(posix.dirname(fromPath), clean)
  const normal = posix.normalize(joined)
  if (normal === "." || normal === ".." || normal.startsWith("../")) return undefined
  return normal.replace(/\/$/, "")
}

/** The `#fragment` of a link target, if any. */
export const linkFragment = (target: string): string | undefined => {
  const hash = target.indexOf("#")
  return hash === -1 || hash === target.length - 1 ? undefined : target.slice(hash + 1)
}
