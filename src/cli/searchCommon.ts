import type { Effect } from "effect"
import type { UsageError } from "../domain/Errors.js"
import { parseQuery } from "../domain/Query.js"
import { limitQueryTerms, type BeliefFilter, type SearchInput, type SearchResult } from "../domain/Search.js"
import { collapseWhitespace, markTerms, snippetTerms } from "../domain/Snippet.js"
import { neutralise } from "../domain/TerminalText.js"
import { eventSource } from "./eventSource.js"
import { checkLimitRange } from "./limit.js"
import type { Format } from "./options.js"
import { escapeMarkdown, type Style, type View } from "./render.js"

/**
 * What the two front ends of `akm search` share — the @effect/cli command
 * (search.ts) and the start-up fast path (fast/search.ts) — so that both turn
 * the same options into the same input and print the same bytes.
 */

/** The options of `akm search` once parsed, by either front end. */
export interface SearchOptions {
  readonly query: ReadonlyArray<string>
  readonly bundle: ReadonlyArray<string>
  readonly type: ReadonlyArray<string>
  readonly adapter: ReadonlyArray<string>
  readonly belief: BeliefFilter
  readonly includeProposed: boolean
  readonly filter: Readonly<Record<string, string>> | undefined
  readonly limit: number | undefined
  readonly noTrack: boolean
}

const list = (values: ReadonlyArray<string>): ReadonlyArray<string> | undefined => (values.length === 0 ? undefined : values)

export const searchInput = (o: SearchOptions): SearchInput => ({
  query: o.query.join(" "),
  limit: o.limit,
  bundles: list(o.bundle),
  types: list(o.type),
  adapters: list(o.adapter),
  belief: o.belief,
  includeProposed: o.includeProposed,
  filters: o.filter,
  track: !o.noTrack,
  source: eventSource()
})

/** `--limit` outside 1–200 is a usage error naming the range (exit 2, spec 04 §3). */
export const checkLimit = (limit: number | undefined): Effect.Effect<void, UsageError> => checkLimitRange(limit)

/** Where text output wraps: the terminal's width, else COLUMNS, else 100 (piped output has no width of its own). */
export const outputWidth = (stdout: { readonly isTTY?: boolean; readonly columns?: number }, env: Readonly<Record<string, string | undefined>>): number => {
  const columns = stdout.isTTY === true && (stdout.columns ?? 0) > 0 ? stdout.columns! : /^\d+$/.test(env.COLUMNS ?? "") ? Number(env.COLUMNS) : PIPED_WIDTH
  return Math.max(MIN_WIDTH, columns)
}
const PIPED_WIDTH = 100
const MIN_WIDTH = 40

/** Characters as a terminal counts them (one per code point; wide scripts are not measured). */
const width = (text: string): number => [...text].length

/** At most `room` characters, the last an ellipsis when cut: after a word when one ends near the cut. */
const clip = (text: string, room: number): string => {
  if (width(text) <= room) return text
  if (room <= 0) return ""
  const kept = [...text].slice(0, room - 1).join("")
  const space = kept.lastIndexOf(" ")
  return `${(space >= kept.length - WORD_BACKOFF && space > 0 ? kept.slice(0, space) : kept).trimEnd()}…`
}
/** How far back a cut looks for the end of a word. */
const WORD_BACKOFF = 12

/** Bundle text on one line, as the terminal will show it. */
const oneLine = (text: string): string => collapseWhitespace(neutralise(text))

/** The query as an empty result quotes it: a pasted page is cut. */
const quoted = (query: string): string => JSON.stringify(clip(collapseWhitespace(query), 60))

/** The filters a search ran with, as typed: an empty result names them. */
const activeFilters = (o: SearchOptions): string =>
  [
    ...o.type.map((t) => `--type ${t}`),
    ...o.bundle.map((b) => `--bundle ${b}`),
    ...o.adapter.map((a) => `--adapter ${a}`),
    ...(o.belief === "current" ? [] : [`--belief ${o.belief}`]),
    ...(o.includeProposed ? ["--include-proposed"] : []),
    ...Object.entries(o.filter ?? {}).map(([key, value]) => `--filter ${key}=${value}`)
  ].join(" ")

/** The terms the hits' snippets are marked with: those the search used. */
const termsOf = (query: string) => snippetTerms(limitQueryTerms(parseQuery(query)).query)

const SCORE_WIDTH = 5
/** A title gets at least this much of a line before the ref column stops widening for long refs. */
const MIN_TITLE = 16
const SNIPPET_INDENT = "  "

/**
 * `akm search` for people (issue 15 item 6): per hit one line — ref, score,
 * title cut to the width — and a line of snippet with the query's terms
 * marked (bold on a terminal); then the total, stale bundles, time and the
 * next command. Refs are never cut: they are what one copies.
 */
const searchText = (o: SearchOptions, columns: number) => (r: SearchResult, s: Style): string => {
  const footer = [
    `${r.hits.length} of ${r.total}`,
    ...(r.stale.length === 0 ? [] : [s.yellow(`stale: ${r.stale.join(", ")} (see \`akm bundle show <name>\`)`)]),
    `${r.timingMs} ms`
  ].join(s.dim(" · "))
  if (r.hits.length === 0) {
    if (r.hint !== undefined) return [r.hint, footer].join("\n")
    const filters = activeFilters(o)
    return [
      `no matches for ${quoted(r.query)}${filters === "" ? "" : ` with ${filters}`}`,
      s.dim(filters === "" ? "try fewer or other words, a prefix such as `skills/`, or `akm index` if files changed" : "try without some of the filters, other words, or `akm index` if files changed"),
      footer
    ].join("\n")
  }
  const marking = s.bold("x") !== "x"
  const terms = marking ? termsOf(r.query) : undefined
  const refWidth = Math.min(Math.max(...r.hits.map((h) => width(h.ref))), Math.max(0, columns - SCORE_WIDTH - 4 - MIN_TITLE))
  const lines = r.hits.flatMap((h) => {
    const ref = h.ref + " ".repeat(Math.max(0, refWidth - width(h.ref)))
    const title = clip(oneLine(h.name), columns - width(ref) - SCORE_WIDTH - 4)
    const snippet = clip(oneLine(h.snippet), columns - SNIPPET_INDENT.length)
    return [
      `${s.bold(ref)}  ${s.dim(h.score.toFixed(3))}${title === "" ? "" : `  ${title}`}`,
      ...(snippet === "" ? [] : [`${SNIPPET_INDENT}${terms === undefined ? snippet : markTerms(snippet, terms, (t) => s.bold(s.yellow(t)))}`])
    ]
  })
  return [...lines, "", s.dim(footer), s.dim(`next: ${r.hits[0]!.next}`)].join("\n")
}


/** A link destination in <…>: any path, spaces included. */
const destination = (path: string): string => `<${path.replace(/[<>]/g, (c) => encodeURIComponent(c))}>`

/** `akm search --format md`: a numbered list, each hit a link to its file with its ref and score, its snippet quoted with the terms in bold. */
const searchMd = (o: SearchOptions) => (r: SearchResult): string => {
  const heading = `## akm search ${escapeMarkdown(collapseWhitespace(r.query))}`
  const summary = `${r.hits.length} of ${r.total}${r.stale.length === 0 ? "" : ` · stale: ${r.stale.map(escapeMarkdown).join(", ")}`} · ${r.timingMs} ms`
  if (r.hits.length === 0) {
    const filters = activeFilters(o)
    return [heading, "", r.hint ?? `No matches${filters === "" ? "" : ` with \`${filters}\``}.`, "", summary].join("\n")
  }
  const terms = termsOf(r.query)
  const items = r.hits.flatMap((h, i) => {
    const marker = `${i + 1}. `
    const indent = " ".repeat(marker.length)
    const snippet = collapseWhitespace(h.snippet)
    return [
      `${marker}[${escapeMarkdown(collapseWhitespace(h.name))}](${destination(h.path)}) — \`${h.ref}\` · ${h.score.toFixed(3)}`,
      ...(snippet === "" ? [] : [`${indent}> ${markTerms(snippet, terms, (t) => `**${escapeMarkdown(t)}**`, escapeMarkdown)}`])
    ]
  })
  return [heading, "", ...items, "", summary].join("\n")
}

/** The views of one search: text fits `columns`; md and the machine formats ignore it. */
export const searchView = (o: SearchOptions, columns: number): View<SearchResult> => ({
  text: searchText(o, columns),
  md: searchMd(o),
  rows: (r) => r.hits
})

/** The stderr note of a search that left terms out (text output only; -q drops it). */
export const truncationNote = (r: SearchResult, format: Format, quiet: boolean, s: Style): string | undefined =>
  r.queryTruncated === undefined || format !== "text" || quiet
    ? undefined
    : `${s.yellow("note:")} the query has ${r.queryTruncated.kept + r.queryTruncated.dropped} distinct terms; searched for the first ${r.queryTruncated.kept}\n`
