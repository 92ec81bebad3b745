import type { ShowResult } from "../programs/show.js"
import { escapeMarkdown, markdownFence, table, type Style, type View } from "./render.js"

// The view of `akm show`, shared by the @effect/cli command (show.ts) and the start-up fast path (fast/show.ts).

const cardLines = (r: ShowResult, s: Style): ReadonlyArray<string> => [
  `${s.bold(r.name)}  ${s.dim(r.type ?? "item")}  ${r.ref}${r.fragment === undefined ? "" : `#${r.fragment}`}`,
  ...(r.description === null ? [] : [r.description]),
  ...(r.tags.length === 0 ? [] : [`${s.dim("tags:")} ${r.tags.join(", ")}`]),
  `${s.dim("tokens:")} ${r.tokensEstimated ? "~" : ""}${r.tokens}${r.partOf === undefined ? "" : `  ${s.dim("part of:")} ${r.partOf}`}`,
  ...(r.stale ? [s.yellow("stale: the file changed since it was indexed; shown as it is now (run `akm index`)")] : []),
  ...(r.valuesHidden ? [s.dim("values are never shown; key names only")] : [])
]

const outlineLines = (r: ShowResult, s: Style): ReadonlyArray<string> => [
  ...(r.outline === undefined || r.outline.length === 0 ? [] : ["", s.bold("Outline"), ...r.outline.map((h) => `${"  ".repeat(h.depth - 1)}${h.text}  ${s.dim(`#${h.slug}  line ${h.line}`)}`)]),
  ...(r.links === undefined || r.links.length === 0 ? [] : ["", s.bold("Links"), ...r.links.map((link) => `  ${link}`)]),
  ...(r.resources === undefined || r.resources.length === 0
    ? []
    : ["", s.bold("Resources"), table(r.resources.map((x) => [`  ${x.path}`, x.tokens === undefined ? `${x.bytes} B` : `${x.tokens} tokens`, x.ref]))])
]

/** card and outline print the item's facts; full prints its text as is, with a note when it was cut. */
export const showView: View<ShowResult> = {
  text: (r, s) => {
    if (r.level !== "full") return [...cardLines(r, s), ...(r.level === "outline" ? outlineLines(r, s) : []), "", s.dim(`next: ${r.next}`)].join("\n")
    const notes = [
      ...(r.stale ? [s.yellow("[stale: the file changed since it was indexed; shown as it is now]")] : []),
      ...(r.truncated === undefined ? [] : [s.yellow(`[truncated before ${r.truncated.at === "heading" ? "a heading" : r.truncated.at === "line" ? "a line" : "the end of a line"}: ${r.contentTokens} of ${r.truncated.totalTokens} tokens shown; ${r.truncated.hint}]`)])
    ]
    return [r.content ?? "", ...(notes.length === 0 ? [] : ["", ...notes])].join("\n")
  },
  md: (r) => showMd(r)
}

/** YAML frontmatter at the start of a file: metadata, not text; in the middle of a page it would render as a rule and a heading. */
const FRONTMATTER = /^---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/

const MARKDOWN_FILE = /\.(md|markdown|mdx)$/i

/** The first line that is not blank, when it is a level-1 heading. */
const opensWithTitle = (text: string): boolean => /^\s*# \S/.test(text)

const notesMd = (r: ShowResult): ReadonlyArray<string> => [
  ...(r.stale ? ["> stale: the file changed since it was indexed; shown as it is now (run `akm index`)"] : []),
  ...(r.valuesHidden ? ["> values are never shown; key names only"] : []),
  ...(r.truncated === undefined ? [] : [`> truncated: ${r.contentTokens} of ${r.truncated.totalTokens} tokens shown; ${escapeMarkdown(r.truncated.hint)}`])
]

/**
 * `--format md`: markdown to paste or render (issue 15 item 7). `full` is the
 * item's markdown as is — frontmatter left out — under a title heading (its
 * own when it opens with one); text that is not markdown goes in a fence.
 * card and outline are the facts as a list, the outline as links to its headings.
 */
const showMd = (r: ShowResult): string => {
  const title = `# ${escapeMarkdown(r.name)}`
  if (r.level === "full") {
    const content = r.content ?? ""
    const markdown = MARKDOWN_FILE.test(r.path) && r.partOf === undefined
    const body = markdown ? content.replace(FRONTMATTER, "").replace(/^\s*\n/, "") : markdownFence(content, (/\.([A-Za-z0-9]+)$/.exec(r.path)?.[1] ?? "").toLowerCase())
    const notes = notesMd(r)
    return [...(markdown && opensWithTitle(body) ? [] : [title, ""]), body.trimEnd(), ...(notes.length === 0 ? [] : ["", ...notes])].join("\n")
  }
  const facts = [
    `- ref: \`${r.ref}${r.fragment === undefined ? "" : `#${r.fragment}`}\``,
    `- type: ${escapeMarkdown(r.type ?? "item")}`,
    ...(r.tags.length === 0 ? [] : [`- tags: ${r.tags.map(escapeMarkdown).join(", ")}`]),
    `- tokens: ${r.tokensEstimated ? "~" : ""}${r.tokens}`,
    ...(r.partOf === undefined ? [] : [`- part of: \`${r.partOf}\``])
  ]
  const outline = r.level !== "outline" ? [] : [
    ...(r.outline === undefined || r.outline.length === 0 ? [] : ["", "## Outline", "", ...r.outline.map((h) => `${"  ".repeat(h.depth - 1)}- [${escapeMarkdown(h.text)}](#${h.slug}) (line ${h.line})`)]),
    ...(r.links === undefined || r.links.length === 0 ? [] : ["", "## Links", "", ...r.links.map((link) => `- \`${link}\``)]),
    ...(r.resources === undefined || r.resources.length === 0
      ? []
      : ["", "## Resources", "", ...r.resources.map((x) => `- \`${x.ref}\` — ${x.tokens === undefined ? `${x.bytes} B` : `${x.tokens} tokens`}`)])
  ]
  const notes = notesMd(r)
  return [
    title,
    ...(r.description === null ? [] : ["", escapeMarkdown(r.description)]),
    "",
    ...facts,
    ...outline,
    ...(notes.length === 0 ? [] : ["", ...notes]),
    ...(r.next === undefined ? [] : ["", `next: \`${r.next}\``])
  ].join("\n")
}
