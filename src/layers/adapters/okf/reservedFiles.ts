import { stringField } from "../core/Frontmatter.js"
import type { ListItem } from "../core/Markdown.js"
import { readMarkdown } from "../core/MarkdownDocument.js"

/** The formats of the reserved files (OKF §8 `index.md`, §9 `log.md`). */

export interface FormatProblem {
  readonly message: string
  readonly line: number
}

/** The versions of OKF this reader understands (OKF §12). */
const KNOWN_VERSIONS = new Set(["0.1", "0.2"])

const ENTRY_SHAPE = "`* [Title](relative-url) - description`"

/** Problems of one list entry, or none: it must start with a link, optionally followed by ` - description`. */
const entryProblem = (item: ListItem): string | undefined => {
  if (item.leadingLink === undefined) return `the entry does not start with a link; write ${ENTRY_SHAPE}`
  const rest = item.leadingLink.after
  if (rest.trim() !== "" && !/^\s*[-–—:]\s/.test(rest)) return `the text after the link should read " - description"; write ${ENTRY_SHAPE}`
  return undefined
}

export interface IndexCheck {
  readonly problems: ReadonlyArray<FormatProblem>
  /** `okf_version` declared by a bundle-root index. */
  readonly okfVersion: string | undefined
  readonly unknownVersion: boolean
  readonly okfVersionLine: number | undefined
}

/** OKF §8: sections of `* [Title](url) - description` entries; no frontmatter but `okf_version` at the root. */
export const checkIndexFile = (text: string, isRoot: boolean): IndexCheck => {
  const problems: Array<FormatProblem> = []
  const { frontmatter, scan } = readMarkdown(text)
  let okfVersion: string | undefined
  if (frontmatter.error !== undefined) {
    problems.push({ message: `the frontmatter is not valid YAML: ${frontmatter.error.message}`, line: frontmatter.error.line })
  } else if (frontmatter.present) {
    const keys = Object.keys(frontmatter.data ?? {})
    if (!isRoot) problems.push({ message: "index.md carries frontmatter; only the bundle-root index.md may, and only `okf_version`", line: 1 })
    else {
      const extra = keys.filter((key) => key !== "okf_version")
      if (extra.length > 0) problems.push({ message: `the root index.md frontmatter may hold only \`okf_version\`, not ${extra.map((k) => `\`${k}\``).join(", ")}`, line: frontmatter.keyLines[extra[0]!] ?? 1 })
      okfVersion = stringField(frontmatter.data, "okf_version")
    }
  }
  let reportedUnsectioned = false
  for (const item of scan.listItems) {
    if (!item.topLevel) continue
    if (item.section === undefined && !reportedUnsectioned) {
      problems.push({ message: "entries are listed before any section heading; group them under a heading", line: item.line })
      reportedUnsectioned = true
    }
    const problem = entryProblem(item)
    if (problem !== undefined) problems.push({ message: problem, line: item.line })
  }
  return { problems, okfVersion, unknownVersion: okfVersion !== undefined && !KNOWN_VERSIONS.has(okfVersion), okfVersionLine: frontmatter.keyLines.okf_version }
}

const DATE_HEADING = /^(\d{4})-(\d{2})-(\d{2})$/

const isCalendarDate = (text: string): boolean => {
  const match = DATE_HEADING.exec(text)
  if (match === null) return false
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
  return date.toISOString().slice(0, 10) === text
}

/** OKF §9: entries grouped under `## YYYY-MM-DD` headings, newest first. Frontmatter is allowed. */
export const checkLogFile = (text: string): ReadonlyArray<FormatProblem> => {
  const problems: Array<FormatProblem> = []
  const { frontmatter, scan } = readMarkdown(text)
  if (frontmatter.error !== undefined) problems.push({ message: `the frontmatter is not valid YAML: ${frontmatter.error.message}`, line: frontmatter.error.line })
  let previous: string | undefined
  for (const heading of scan.headings) {
    if (heading.depth !== 2) continue
    if (!isCalendarDate(heading.text)) {
      problems.push({ message: `log heading "${heading.text}" is not an ISO 8601 date (## YYYY-MM-DD)`, line: heading.line })
      continue
    }
    if (previous !== undefined && heading.text > previous) problems.push({ message: `${heading.text} comes after ${previous}; log entries go newest first`, line: heading.line })
    previous = heading.text
  }
  return problems
}
