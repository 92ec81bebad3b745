import type { Span } from "../core/Markdown.js"
import { dirnameOf, resolveInside } from "../core/Paths.js"
import type { FileReference, FileSet } from "../skill-md/index.js"

/**
 * `@path` imports of a CLAUDE.md (or rule file): Claude Code loads the named
 * file into context. Read from plain text only — Claude Code ignores `@` inside
 * code spans and blocks — and only tokens that look like a path (a `/` or a
 * `.`), so `@username` mentions are not imports. Relative to the importing
 * file; home-relative (`@~/…`) and absolute imports are outside the bundle.
 */
export const claudeImports = (textSpans: ReadonlyArray<Span>, docPath: string, files: FileSet): ReadonlyArray<FileReference> => {
  const out: Array<FileReference> = []
  for (const span of textSpans) {
    for (const match of span.text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
      const target = match[1]!.replace(/[.,;:!?)\]]+$/, "")
      if (!/[/.]/.test(target) || target.startsWith("~") || target.startsWith("/")) continue
      const path = resolveInside(dirnameOf(docPath), target)
      if (path === undefined) continue
      out.push({ target: `@${target}`, path, line: span.line, exists: files.has(path) })
    }
  }
  return out
}
