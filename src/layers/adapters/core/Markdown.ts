import MarkdownIt, { type Token } from "markdown-it"
import { headingSlug } from "../../../domain/Ref.js"

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

export interface MarkdownScan {
  readonly headings: ReadonlyArray<Heading>
  readonly links: ReadonlyArray<Link>
  readonly fences: ReadonlyArray<{ readonly lang: string; readonly line: number }>
  /** The first level-1 heading's text. */
  readonly title: string | undefined
  /** The first paragraph's text. */
  readonly firstParagraph: string | undefined
  /** Body projection: plain text without code fences, HTML or link targets, capped (spec 04 §1). */
  readonly text: string
}

export const CONTENT_CAP_BYTES = 16 * 1024

const parser = MarkdownIt({ html: true, linkify: false })

const inlineText = (token: Token | undefined): string =>
  (token?.children ?? ([] as Array<Token>))
    .filter((c) => c.type === "text" || c.type === "code_inline" || c.type === "softbreak" || c.type === "hardbreak")
    .map((c) => (c.type === "softbreak" || c.type === "hardbreak" ? " " : c.content))
    .join("")
    .trim()

/** Cuts text to at most `cap` UTF-8 bytes without splitting a character. */
export const capBytes = (text: string, cap: number = CONTENT_CAP_BYTES): string => {
  if (Buffer.byteLength(text, "utf8") <= cap) return text
  let out = Buffer.from(text, "utf8").subarray(0, cap).toString("utf8")
  if (out.endsWith("\uFFFD")) out = out.slice(0, -1)
  return out
}

/**
 * Scans markdown text into headings (outline), links, fences and a plain-text
 * projection. `lineOffset` is added to every line so numbers refer to the whole
 * file when the text is a body after frontmatter.
 */
export const scanMarkdown = (source: string, lineOffset = 0): MarkdownScan => {
  const tokens = parser.parse(source, {})
  const headings: Array<Heading> = []
  const links: Array<Link> = []
  const fences: Array<{ lang: string; line: number }> = []
  const parts: Array<string> = []
  let title: string | undefined
  let firstParagraph: string | undefined
  let paragraphOpen = false
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    const line = (token.map?.[0] ?? 0) + 1 + lineOffset
    switch (token.type) {
      case "heading_open": {
        const text = inlineText(tokens[i + 1])
        const depth = Number(token.tag.slice(1))
        headings.push({ depth, text, slug: headingSlug(text), line })
        if (depth === 1 && title === undefined && text !== "") title = text
        break
      }
      case "paragraph_open":
        paragraphOpen = true
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
        if (paragraphOpen && firstParagraph === undefined && text !== "") firstParagraph = text
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
          } else if (linkText !== undefined && (child.type === "text" || child.type === "code_inline")) {
            linkText.push(child.content)
          } else if (child.type === "softbreak" || child.type === "hardbreak") {
            current++
            if (linkText !== undefined) linkText.push(" ")
          }
        }
        break
      }
    }
  }
  return { headings, links, fences, title, firstParagraph, text: capBytes(parts.join("\n")) }
}

/** True when a link target points outside the bundle (a URL, mailto:, an in-page anchor). */
export const isExternalTarget = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//") || target.startsWith("#")
