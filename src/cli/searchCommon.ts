import { Effect } from "effect"
import { UsageError } from "../domain/Errors.js"
import type { BeliefFilter, SearchInput, SearchResult } from "../domain/Search.js"
import { eventSource } from "./eventSource.js"
import { table, type View } from "./render.js"

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

/** `--limit` below 1 is a usage error (exit 2); above 200 the program clamps it. */
export const checkLimit = (limit: number | undefined): Effect.Effect<void, UsageError> =>
  limit !== undefined && limit < 1 ? Effect.fail(new UsageError({ message: `--limit must be at least 1, not ${limit}`, hint: "e.g. --limit 10 (at most 200)" })) : Effect.void

const DESCRIPTION_WIDTH = 72

const clip = (text: string, width: number): string => (text.length <= width ? text : `${text.slice(0, width - 1)}…`)

/** One aligned line per hit — rank, score, ref, name, description — and a footer with the total, stale bundles and time. */
export const searchView: View<SearchResult> = {
  text: (r, s) => {
    const footer = [
      `${r.hits.length} of ${r.total}`,
      ...(r.stale.length === 0 ? [] : [s.yellow(`stale: ${r.stale.join(", ")} (see \`akm bundle show <name>\`)`)]),
      `${r.timingMs} ms`
    ].join(s.dim(" · "))
    if (r.hits.length === 0) return [`no matches for ${JSON.stringify(r.query)}`, s.dim("try fewer or other words, a prefix such as `skills/`, or `akm index` if files changed"), footer].join("\n")
    const rows = r.hits.map((h, i) => [
      s.dim(String(i + 1).padStart(String(r.hits.length).length)),
      h.score.toFixed(2),
      s.bold(h.ref),
      h.name,
      s.dim(clip((h.description ?? "").replace(/\s+/g, " "), DESCRIPTION_WIDTH))
    ])
    return [table(rows), "", s.dim(footer), s.dim(`next: ${r.hits[0]!.next}`)].join("\n")
  },
  rows: (r) => r.hits
}
