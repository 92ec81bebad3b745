import type { Heading as MdastHeading, Nodes, Root } from "mdast"
import remarkFrontmatter from "remark-frontmatter"
import remarkGfm from "remark-gfm"
import remarkParse from "remark-parse"
import { unified } from "unified"
import { githubSlugger } from "../../../domain/Ref.js"

/**
 * The fidelity half of the Markdown module (spec 03 §1.1): a full mdast tree
 * from remark for authoring and lint fixes, where volume is low. Indexing uses
 * the token stream of Markdown.ts instead. Edits here splice the source text by
 * the tree's offsets — the rest of the file keeps its exact bytes.
 */

const parser = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]).use(remarkGfm)

export const parseMarkdownAst = (text: string): Root => parser.parse(text)

/** The plain text of a node: text and inline code values, in order. */
export const plainText = (node: Nodes): string =>
  "value" in node && (node.type === "text" || node.type === "inlineCode") ? node.value
  : "children" in node ? (node.children as ReadonlyArray<Nodes>).map(plainText).join("")
  : ""

export interface Section {
  readonly depth: number
  readonly text: string
  readonly slug: string
  /** Offset of the heading's first character. */
  readonly start: number
  /** Offset just after the heading line. */
  readonly bodyStart: number
  /** Offset where the next heading of the same or a higher level starts (or the end of the text). */
  readonly end: number
}

/** Every heading as a section with source offsets, in document order. */
export const sections = (text: string): ReadonlyArray<Section> => {
  const headings = parseMarkdownAst(text).children.filter((node): node is MdastHeading => node.type === "heading")
  const slugOf = githubSlugger()
  return headings.map((heading, i) => {
    const start = heading.position?.start.offset ?? 0
    const headingEnd = heading.position?.end.offset ?? start
    const newline = text.indexOf("\n", headingEnd)
    const next = headings.slice(i + 1).find((h) => h.depth <= heading.depth)
    const label = plainText(heading).trim()
    return {
      depth: heading.depth,
      text: label,
      slug: slugOf(label),
      start,
      bodyStart: newline === -1 ? text.length : newline + 1,
      end: next?.position?.start.offset ?? text.length
    }
  })
}

/**
 * Replaces the body of the first section whose slug matches (its heading line
 * stays), or returns undefined when no heading has that slug.
 */
export const replaceSectionBody = (text: string, slug: string, body: string): string | undefined => {
  const section = sections(text).find((s) => s.slug === slug)
  if (section === undefined) return undefined
  const ending = body === "" || body.endsWith("\n") ? body : `${body}\n`
  const gap = section.end < text.length && ending !== "" && !ending.endsWith("\n\n") ? "\n" : ""
  return text.slice(0, section.bodyStart) + ending + gap + text.slice(section.end)
}

/** Appends a new section at the end of the text, separated by one blank line. */
export const appendSection = (text: string, depth: number, heading: string, body: string): string => {
  const trimmed = text.replace(/\n*$/, "")
  const lead = trimmed === "" ? "" : `${trimmed}\n\n`
  return `${lead}${"#".repeat(Math.min(Math.max(depth, 1), 6))} ${heading}\n\n${body.replace(/\n*$/, "")}\n`
}
