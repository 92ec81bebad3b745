import MarkdownIt from "markdown-it"
import type Token from "markdown-it/lib/token.mjs"
import { githubSlugger } from "../../../domain/Ref.js"

/**
 * The one markdown module (spec 03 §1.1). Indexing uses markdown-it's token
 * stream (≈ 30× faster than remark here); remark is for authoring and edits
 * where fidelity matters (see MarkdownAst.ts).
 */

export interface Heading {
  readonly depth: number
  readonly text: string
  readonly slug: string
  /** 1-based line in the scanned text (plus the given offset). */
  readonly line: number
}

export interface Link {
  readonly target: string
  readonly text: string
  readonly line: number
}

/** A run of inline text or an inline code span. */
export interface Span {
  readonly text: string
  /** 1-based line in the scanned text (plus the given offset). */
  readonly line: number
}

export interface ListItem {
  /** 1-based line of the item's marker (plus the given offset). */
  readonly line: number
  /** An item of a list at the top of the document, not nested in another list item or a quote. */
  readonly topLevel: boolean
  /** The last heading outside lists and quotes before the item, if any. */
  readonly section: Heading | undefined
  /** When the item's first paragraph opens with a link: its target and the paragraph's text after it (line breaks as spaces). */
  readonly leadingLink: { readonly target: string; readonly after: string } | undefined
}

export interface MarkdownScan {
  readonly headings: ReadonlyArray<Heading>
  readonly links: ReadonlyArray<Link>
  readonly fences: ReadonlyArray<{ readonly lang: string; readonly line: number }>
  /** Inline code spans, e.g. file names a skill mentions (`scripts/extract.py`). */
  readonly codeSpans: ReadonlyArray<Span>
  /** Plain-text runs outside code, e.g. where CLAUDE.md writes `@path` imports. */
  readonly textRuns: ReadonlyArray<Span>
  /** List items with their leading link, e.g. the entries of an OKF `index.md`. */
  readonly listItems: ReadonlyArray<ListItem>
  /** The first level-1 heading's text. */
  readonly title: string | undefined
  /** The first paragraph's text. */
  readonly firstParagraph: string | undefined
  /** Body projection: plain text without code fences, HTML or link targets, capped (spec 04 §1). */
  readonly text: string
}

export const CONTENT_CAP_BYTES = 16 * 1024

// Made on first parse: a command that never parses markdown (a no-op index run, decision 0045) does not pay for it.
let parser: MarkdownIt | undefined

/**
 * A copy of text cut from the source. V8 keeps a slice (13+ characters) as a
 * view of the whole source, so a heading kept in a projection would keep its
 * file's entire body alive until the projection goes; an index run holds
 * thousands of projections at once (spec 10 §2 memory bound).
 */
const detached = (text: string): string => (text.length < 13 ? text : Buffer.from(text, "utf16le").toString("utf16le"))

const breakText = (child: Token): string => (child.type === "softbreak" || child.type === "hardbreak" ? " " : child.content)

const inlineText = (token: Token | undefined): string => {
  let text = ""
  for (const c of token?.children ?? []) {
    if (c.type === "text" || c.type === "code_inline") text += c.content
    else if (c.type === "softbreak" || c.type === "hardbreak") text += " "
  }
  return text.trim()
}

/** The link an inline run opens with (whitespace-only text before it aside), and the text after that link. */
const leadingLinkOf = (inline: Token | undefined): ListItem["leadingLink"] => {
  const children = inline?.type === "inline" ? inline.children ?? [] : []
  let first = 0
  while (first < children.length && children[first]!.type === "text" && children[first]!.content.trim() === "") first++
  const open = children[first]
  if (open?.type !== "link_open") return undefined
  const close = children.findIndex((child, i) => i > first && child.type === "link_close")
  return { target: String(open.attrGet("href") ?? ""), after: close === -1 ? "" : children.slice(close + 1).map(breakText).join("") }
}

/** Cuts text to at most `cap` UTF-8 bytes without splitting a character. */
export const capBytes = (text: string, cap: number = CONTENT_CAP_BYTES): string => {
  if (Buffer.byteLength(text, "utf8") <= cap) return text
  let out = Buffer.from(text, "utf8").subarray(0, cap).toString("utf8")
  if (out.endsWith("\uFFFD")) out = out.slice(0, -1)
  return out
}

/**
 * Scans markdown text in one pass into headings (outline), links, fences,
 * inline code spans and text runs, list items and a plain-text projection.
 * `lineOffset` is added to every line so numbers refer to the whole file when
 * the text is a body after frontmatter.
 */
export const scanMarkdown = (source: string, lineOffset = 0): MarkdownScan => {
  const tokens = (parser ??= MarkdownIt({ html: true, linkify: false })).parse(source, {})
  const headings: Array<Heading> = []
  const links: Array<Link> = []
  const fences: Array<{ lang: string; line: number }> = []
  const codeSpans: Array<Span> = []
  const textRuns: Array<Span> = []
  const listItems: Array<ListItem> = []
  let section: Heading | undefined
  const parts: Array<string> = []
  let title: string | undefined
  let firstParagraph: string | undefined
  let paragraphOpen = false
  const slugOf = githubSlugger()
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    const line = (token.map?.[0] ?? 0) + 1 + lineOffset
    switch (token.type) {
      case "heading_open": {
        const text = detached(inlineText(tokens[i + 1]))
        const depth = Number(token.tag.slice(1))
        const heading = { depth, text, slug: slugOf(text), line }
        headings.push(heading)
        if (token.level === 0) section = heading
        if (depth === 1 && title === undefined && text !== "") title = text
        break
      }
      case "paragraph_open":
        paragraphOpen = true
        break
      case "list_item_open":
        listItems.push({
          line,
          topLevel: token.level === 1,
          section,
          leadingLink: tokens[i + 1]?.type === "paragraph_open" ? leadingLinkOf(tokens[i + 2]) : undefined
        })
        break
      case "paragraph_close":
        paragraphOpen = false
        break
      case "fence":
      case "code_block":
        fences.push({ lang: token.info.trim().split(/\s+/)[0] ?? "", line })
        break
      case "inline": {
        const text = inlineText(token)
        if (text !== "") parts.push(text)
        if (paragraphOpen && firstParagraph === undefined && text !== "") firstParagraph = detached(text)
        let linkText: Array<string> | undefined
        let target: string | undefined
        let current = line
        let linkLine = line
        for (const child of token.children ?? []) {
          if (child.type === "link_open") {
            const href = child.attrGet("href")
            target = href === null ? undefined : String(href)
            linkText = []
            linkLine = current
          } else if (child.type === "link_close" && target !== undefined) {
            links.push({ target, text: (linkText ?? []).join("").trim(), line: linkLine })
            target = undefined
            linkText = undefined
          } else if (child.type === "image") {
            const src = child.attrGet("src")
            if (src !== null) links.push({ target: String(src), text: child.content, line: current })
          } else if (child.type === "text" || child.type === "code_inline") {
            const span = { text: child.content, line: current }
            if (child.type === "text") textRuns.push(span)
            else codeSpans.push(span)
            linkText?.push(child.content)
          } else if (child.type === "softbreak" || child.type === "hardbreak") {
            current++
            if (linkText !== undefined) linkText.push(" ")
          }
        }
        break
      }
    }
  }
  return { headings, links, fences, codeSpans, textRuns, listItems, title, firstParagraph, text: capBytes(parts.join("\n")) }
}

/** True when a link target points outside the bundle (a URL, mailto:, an in-page anchor). */
export const isExternalTarget = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//") || target.startsWith("#")
