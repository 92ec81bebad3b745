import type { FileMeta, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { linkPath } from "../core/Links.js"
import { isExternalTarget, type Link, type Span } from "../core/Markdown.js"
import { basenameOf, dirnameOf, isMarkdownPath, resolveInside, withoutMarkdownExtension } from "../core/Paths.js"
import type { RuleBook } from "../core/RuleBook.js"

/**
 * The files a skill document points at (spec: "use relative paths from the
 * skill root"). Two kinds of reference count:
 *
 * - markdown links and images with a relative target, resolved against the
 *   document's directory;
 * - inline code naming a file, resolved against the skill directory, when it
 *   is clearly one of the skill's own files: a path whose first directory
 *   exists in the skill (`scripts/extract.py`, `references/forms.md`), or a
 *   bare file name of a kind a model cannot write as text and so must ship
 *   with the skill (`theme-showcase.pdf`, images, fonts, office documents,
 *   archives). Files a skill tells the agent to produce, such as
 *   `feedback.json`, are not references.
 *
 * A reference whose file does not exist is dangling (a warning).
 */

export interface FileReference {
  /** The target as written. */
  readonly target: string
  /** Bundle-relative path it resolves to. */
  readonly path: string
  readonly line: number
  readonly exists: boolean
}

/** Extensions of files that can only ship with a skill, never be written by the agent as text. */
export const SHIPPED_ASSET_EXTENSIONS: ReadonlyArray<string> = [
  "pdf", "png", "jpg", "jpeg", "gif", "webp", "ico", "bmp", "tif", "tiff",
  "ttf", "otf", "woff", "woff2", "docx", "xlsx", "pptx", "zip", "tar", "gz", "tgz", "mp3", "mp4", "wav"
]

const FILE_LIKE = /^[^\s<>*?{}$|"'`[\]()]+\.[A-Za-z0-9]{1,8}$/

/** Paths and the directories that hold them, for existence checks. */
export interface FileSet {
  readonly has: (path: string) => boolean
}

export const fileSetOf = (paths: Iterable<string>): FileSet => {
  const all = new Set<string>()
  for (const path of paths) {
    all.add(path)
    for (let dir = dirnameOf(path); dir !== ""; dir = dirnameOf(dir)) all.add(dir)
  }
  return { has: (path) => all.has(path) }
}

export interface ReferenceScan {
  /** Bundle-relative path of the markdown document. */
  readonly docPath: string
  /** Bundle-relative skill directory. */
  readonly skillDir: string
  readonly links: ReadonlyArray<Link>
  readonly codeSpans: ReadonlyArray<Span>
  readonly files: FileSet
  /** Bundle-relative paths of the skill's files, for bare-name lookups. */
  readonly skillFiles: ReadonlyArray<string>
}

/** Relative markdown links and images of a document, resolved against its directory; external and root-escaping targets are left out. */
export const linkReferences = (links: ReadonlyArray<Link>, docPath: string, files: FileSet): ReadonlyArray<FileReference> => {
  const out: Array<FileReference> = []
  const docDir = dirnameOf(docPath)
  for (const link of links) {
    if (isExternalTarget(link.target)) continue
    const target = linkPath(link.target)
    if (target === "" || target.startsWith("/") || target.startsWith("~")) continue
    const path = resolveInside(docDir, target)
    if (path === undefined) continue
    out.push({ target: link.target, path, line: link.line, exists: files.has(path) })
  }
  return out
}

export const skillFileReferences = (scan: ReferenceScan): ReadonlyArray<FileReference> => {
  const out: Array<FileReference> = [...linkReferences(scan.links, scan.docPath, scan.files)]
  for (const span of scan.codeSpans) {
    const target = span.text.trim().replace(/^\.\//, "")
    if (!FILE_LIKE.test(target) || isExternalTarget(target) || target.startsWith("/") || target.startsWith("~") || target.startsWith("@")) continue
    if (target.includes("/")) {
      const first = target.split("/")[0]!
      if (first === ".." || !scan.files.has(`${scan.skillDir}/${first}`)) continue
      const path = resolveInside(scan.skillDir, target)
      if (path === undefined) continue
      out.push({ target: span.text, path, line: span.line, exists: scan.files.has(path) })
    } else {
      const extension = target.slice(target.lastIndexOf(".") + 1).toLowerCase()
      if (!SHIPPED_ASSET_EXTENSIONS.includes(extension)) continue
      const found = scan.skillFiles.find((p) => basenameOf(p) === target)
      const path = found ?? `${scan.skillDir}/${target}`
      out.push({ target: span.text, path, line: span.line, exists: found !== undefined })
    }
  }
  return out
}

/** WeakMap: freed with the scan's file list. */
const fileSets = new WeakMap<ReadonlyArray<FileMeta>, FileSet>()

/** The bundle's files and directories, built once per file list. */
export const bundleFiles = (ctx: ValidateContext): FileSet => {
  // Asked per path when the context can: reading ctx.files makes the item depend on the whole listing (R-IDX-2).
  const isDirectory = ctx.isDirectory
  if (isDirectory !== undefined) return { has: (path) => ctx.exists(path) || isDirectory(path) }
  const known = fileSets.get(ctx.files)
  if (known !== undefined) return known
  const made = fileSetOf(ctx.files.map((f) => f.path))
  fileSets.set(ctx.files, made)
  return made
}

/** WeakMap: freed with the scan's file list. */
const filesByDirectory = new WeakMap<ReadonlyArray<FileMeta>, Map<string, Array<string>>>()

/**
 * Files under a directory, from an index built once per file list: looking
 * them up by scanning every file for every skill document made indexing
 * quadratic in bundle size.
 */
export const filesUnder = (ctx: ValidateContext, dir: string): ReadonlyArray<string> => {
  if (ctx.filesUnder !== undefined && dir !== "") return ctx.filesUnder(dir)
  let index = filesByDirectory.get(ctx.files)
  if (index === undefined) {
    index = new Map()
    for (const file of ctx.files) {
      const parts = file.path.split("/")
      for (let depth = 1; depth < parts.length; depth++) {
        const prefix = parts.slice(0, depth).join("/")
        const list = index.get(prefix)
        if (list === undefined) index.set(prefix, [file.path])
        else list.push(file.path)
      }
    }
    filesByDirectory.set(ctx.files, index)
  }
  return index.get(dir) ?? []
}

export const danglingDiagnostics = (book: RuleBook, path: string, references: ReadonlyArray<FileReference>): ReadonlyArray<Diagnostic> =>
  references.filter((r) => !r.exists).flatMap((r) => book.report("dangling-link", path, `${r.target} points at ${r.path}, which does not exist`, { line: r.line }))

/** `a/b/SKILL.md` → `a/b` (the skill's concept id); other markdown loses `.md`; other files keep their path. */
export const linkIdOf = (path: string): string =>
  /(^|\/)skill\.md$/i.test(path) ? dirnameOf(path) : isMarkdownPath(path) ? withoutMarkdownExtension(path) : path

/** The link ids of the references that resolve: concept-id form for markdown, the path for other files. */
export const resolvedLinks = (references: ReadonlyArray<FileReference>): ReadonlyArray<string> => references.filter((r) => r.exists).map((r) => linkIdOf(r.path))
