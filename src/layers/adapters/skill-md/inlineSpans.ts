import MarkdownIt from "markdown-it"

/**
 * Inline code spans and plain-text runs of a markdown body, with lines, from
 * markdown-it's token stream. Skills name their files in code spans
 * (`scripts/extract.py`) and CLAUDE.md imports files as `@path` in plain text
 * (never inside code), so both need the distinction a regular expression over
 * the raw text cannot make. core/Markdown.ts does not expose code spans; this
 * is the one other place that tokenizes markdown (candidate for core).
 */

export interface Span {
  readonly text: string
  /** 1-based line in the scanned text plus the given offset. */
  readonly line: number
}

export interface InlineSpans {
  readonly code: ReadonlyArray<Span>
  readonly text: ReadonlyArray<Span>
}

const parser = MarkdownIt({ html: true, linkify: false })

export const inlineSpans = (source: string, lineOffset = 0): InlineSpans => {
  const code: Array<Span> = []
  const text: Array<Span> = []
  for (const token of parser.parse(source, {})) {
    if (token.type !== "inline") continue
    let line = (token.map?.[0] ?? 0) + 1 + lineOffset
    for (const child of token.children ?? []) {
      if (child.type === "softbreak" || child.type === "hardbreak") line++
      else if (child.type === "code_inline") code.push({ text: child.content, line })
      else if (child.type === "text") text.push({ text: child.content, line })
    }
  }
  return { code, text }
}
