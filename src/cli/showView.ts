import type { ShowResult } from "../programs/show.js"
import { table, type Style, type View } from "./render.js"

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
  }
}
