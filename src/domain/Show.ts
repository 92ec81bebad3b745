/**
 * `akm show` as pure functions (spec 04 §4): headings of the file as it is
 * now, the section a fragment names (R-REF-7), line ranges, the places where
 * `--max-tokens` may cut, and which items hold secrets (R-SHOW-2). No I/O.
 */
import { Either } from "effect"
import type { IndexDocument } from "./IndexDocument.js"
import { findSection, githubSlugger, type Heading } from "./Ref.js"

export type ShowLevel = "card" | "outline" | "full"

export const SHOW_LEVELS: ReadonlyArray<ShowLevel> = ["card", "outline", "full"]

export interface MarkdownHeading extends Heading {
  readonly slug: string
}

const MARKDOWN_EXTENSION = /\.(md|markdown|mdx|mdown|mkd)$/i

/** Only markdown has headings: a `#` line in a script is a comment. */
export const isMarkdownPath = (path: string): boolean => MARKDOWN_EXTENSION.test(path)

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const FENCE = /^ {0,3}(`{3,}|~{3,})/
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/

/**
 * Heading text as a reader sees it: links, emphasis and code marks removed.
 * Underscores inside a word are not emphasis (CommonMark): `page_location`
 * keeps them.
 */
const plainHeading = (raw: string): string =>
  raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/(\*\*|\*|~~)(\S(?:.*?\S)?)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}_])(__|_)(\S(?:.*?\S)?)\2(?![\p{L}\p{N}_])/gu, "$1$3")
    .trim()

/** Lines of `text` without their line terminators (CRLF or LF). */
export const splitLines = (text: string): ReadonlyArray<string> => text.split(/\r?\n/)

/** Where the YAML frontmatter ends (0-based line after it), 0 when there is none. */
const frontmatterEnd = (lines: ReadonlyArray<string>): number => {
  if (lines[0]?.replace(/^\uFEFF/, "").trimEnd() !== "---") return 0
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!.trimEnd()
    if (line === "---" || line === "...") return i + 1
  }
  return 0
}

/**
 * ATX and setext headings of a markdown text with 1-based line numbers,
 * outside frontmatter and fenced code.
 */
export const markdownHeadings = (text: string): ReadonlyArray<MarkdownHeading> => {
  const lines = splitLines(text)
  const headings: Array<MarkdownHeading> = []
  let fence: string | undefined
  const slug = githubSlugger()
  const push = (raw: string, depth: number, index: number) => {
    const plain = plainHeading(raw)
    if (plain !== "") headings.push({ text: plain, depth, line: index + 1, slug: slug(plain) })
  }
  for (let i = frontmatterEnd(lines); i < lines.length; i++) {
    const line = lines[i]!
    const fenceOpen = FENCE.exec(line)
    if (fence !== undefined) {
      if (fenceOpen !== null && fenceOpen[1]![0] === fence[0] && fenceOpen[1]!.length >= fence.length && line.trim() === fenceOpen[1]) fence = undefined
      continue
    }
    if (fenceOpen !== null) {
      fence = fenceOpen[1]!
      continue
    }
    const atx = ATX.exec(line)
    if (atx !== null) {
      push(atx[2] ?? "", atx[1]!.length, i)
      continue
    }
    const underline = SETEXT.exec(line)
    const previous = lines[i - 1]
    if (underline !== null && previous !== undefined && previous.trim() !== "" && i - 1 >= frontmatterEnd(lines) &&
      !ATX.test(previous) && !FENCE.test(previous) && !SETEXT.test(previous) && headings.at(-1)?.line !== i) {
      push(previous, underline[1]![0] === "=" ? 1 : 2, i - 1)
    }
  }
  return headings
}

export interface LineRange {
  /** 1-based, inclusive. */
  readonly from: number
  /** 1-based, inclusive; undefined = to the end. */
  readonly to?: number | undefined
}

/** `--lines A:B`, `A:` (to the end), `:B` (from the start) or `A` (one line). */
export const parseLineRange = (input: string): Either.Either<LineRange, string> => {
  const match = /^\s*(\d*)\s*(?::\s*(\d*))?\s*$/.exec(input)
  if (match === null || (match[1] === "" && (match[2] ?? "") === "")) return Either.left(`'${input}' is not a line range; write A:B, A: or :B (1-based, inclusive)`)
  const from = match[1] === "" ? 1 : Number(match[1])
  const to = match[2] === undefined ? from : match[2] === "" ? undefined : Number(match[2])
  if (from < 1 || (to !== undefined && to < 1)) return Either.left(`line numbers start at 1 (got '${input}')`)
  if (to !== undefined && to < from) return Either.left(`the range '${input}' ends before it starts`)
  return Either.right({ from, to })
}

export interface Excerpt {
  readonly text: string
  /** 1-based lines of the file the excerpt covers (inclusive). */
  readonly fromLine: number
  readonly toLine: number
}

const joinLines = (lines: ReadonlyArray<string>, from: number, to: number): string => lines.slice(from - 1, to).join("\n")

/** Lines `range` of `text`, clamped to the file; undefined when the range starts past the end. */
export const sliceLines = (text: string, range: LineRange): Excerpt | undefined => {
  const lines = splitLines(text)
  const last = text.endsWith("\n") ? lines.length - 1 : lines.length
  if (range.from > Math.max(last, 1)) return undefined
  const to = Math.min(range.to ?? last, last)
  return { text: joinLines(lines, range.from, to), fromLine: range.from, toLine: to }
}

/** The section a heading opens: its line through the line before the next heading of the same or a higher level. */
export const sectionText = (text: string, headings: ReadonlyArray<MarkdownHeading>, heading: MarkdownHeading): Excerpt => {
  const lines = splitLines(text)
  const index = headings.indexOf(heading)
  const next = headings.slice(index + 1).find((h) => h.depth <= heading.depth)
  const last = next === undefined ? (text.endsWith("\n") ? lines.length - 1 : lines.length) : next.line - 1
  let end = last
  while (end > heading.line && lines[end - 1]!.trim() === "") end--
  return { text: joinLines(lines, heading.line, end), fromLine: heading.line, toLine: end }
}

/** R-REF-7: the section a fragment names, or the slugs there are. */
export const findFragment = (text: string, fragment: string): Either.Either<Excerpt, ReadonlyArray<string>> => {
  const headings = markdownHeadings(text)
  const heading = findSection(headings, fragment)
  return heading === undefined ? Either.left([...new Set(headings.map((h) => h.slug))]) : Either.right(sectionText(text, headings, heading))
}

/**
 * Offsets where `--max-tokens` may cut `text`, best first: before each heading
 * (markdown), then at each line start. A cut keeps text[0, offset).
 */
export const cutPoints = (text: string, markdown: boolean): { readonly headings: ReadonlyArray<number>; readonly lines: ReadonlyArray<number> } => {
  const lines: Array<number> = []
  for (let i = text.indexOf("\n"); i !== -1 && i < text.length - 1; i = text.indexOf("\n", i + 1)) lines.push(i + 1)
  if (!markdown) return { headings: [], lines }
  const headingLines = new Set(markdownHeadings(text).map((h) => h.line))
  return { headings: lines.filter((_, index) => headingLines.has(index + 2)), lines }
}

/**
 * A cut text without the headings it ends on: a heading with no body after it
 * (only blank lines) promises a section the reader does not get, so it goes,
 * and then the one before it if that is now empty too.
 */
export const dropTrailingHeadings = (text: string): string => {
  let out = text.trimEnd()
  for (;;) {
    const last = markdownHeadings(out).at(-1)
    if (last === undefined) return out
    const lines = splitLines(out)
    // A setext heading's underline is part of it; anything else after the heading line is body.
    const after = lines.slice(last.line).filter((line) => line.trim() !== "")
    if (after.length > 1 || (after.length === 1 && !SETEXT.test(after[0]!))) return out
    out = lines.slice(0, last.line - 1).join("\n").trimEnd()
  }
}

// --- secrets (R-SHOW-2) ------------------------------------------------------------------

const SECRET_TYPES = new Set(["env", "secret", "secrets"])
const AKM_SECRET_DIRS = /^(env|secrets)\//

/** Items whose files hold values that must never be printed, whatever their frontmatter says. */
export const holdsSecrets = (doc: Pick<IndexDocument, "type" | "adapter" | "conceptId">): boolean =>
  (doc.type !== undefined && SECRET_TYPES.has(doc.type.toLowerCase())) || doc.adapter === "dotenv" || (doc.adapter === "akm" && AKM_SECRET_DIRS.test(doc.conceptId))

/** Key names an env item declares (from the index: adapters never store values, R-DB-2). */
export const secretKeyNames = (doc: Pick<IndexDocument, "extra" | "hints">): ReadonlyArray<string> => {
  const keys = (doc.extra as { readonly keys?: unknown } | undefined)?.keys
  if (Array.isArray(keys)) {
    return keys.flatMap((key: unknown) => {
      const name = typeof key === "string" ? key : (key as { readonly name?: unknown } | null)?.name
      return typeof name === "string" ? [name] : []
    })
  }
  return (doc.hints ?? []).filter((hint) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(hint))
}

/** What `show` prints for a secret-holding item instead of its file: names, never values. */
export const secretListing = (doc: Pick<IndexDocument, "extra" | "hints" | "name" | "type">): string => {
  const keys = secretKeyNames(doc)
  return keys.length === 0
    ? `${doc.name}: value hidden (akm never prints ${doc.type ?? "secret"} values)`
    : [`${doc.name}: ${keys.length} key${keys.length === 1 ? "" : "s"} (values hidden)`, ...keys.map((key) => `- ${key}`)].join("\n")
}
