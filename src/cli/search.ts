import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, HashMap, Option } from "effect"
import { UsageError } from "../domain/Errors.js"
import type { SearchInput, SearchResult } from "../domain/Search.js"
import { search } from "../programs/search.js"
import { eventSource } from "./eventSource.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { runCommand } from "./run.js"

const DESCRIPTION_WIDTH = 72

const clip = (text: string, width: number): string => (text.length <= width ? text : `${text.slice(0, width - 1)}…`)

/** One aligned line per hit — rank, score, ref, name, description — and a footer with the total, stale bundles and time. */
export const searchView: View<SearchResult> = {
  text: (r, s) => {
    const footer = [
      `${r.hits.length} of ${r.total}`,
      ...(r.stale.length === 0 ? [] : [s.yellow(`stale: ${r.stale.join(", ")} (run \`akm index\`)`)]),
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

const list = (values: ReadonlyArray<string>): ReadonlyArray<string> | undefined => (values.length === 0 ? undefined : values)

export const searchCommand = Command.make(
  "search",
  {
    query: Args.text({ name: "query" }).pipe(
      Args.withDescription("words to look for (quote a \"phrase\"); `prefix/` or `bundle//` lists items; empty lists everything"),
      Args.repeated
    ),
    bundle: Options.text("bundle").pipe(Options.withDescription("only this bundle (repeatable)"), Options.repeated),
    type: Options.text("type").pipe(Options.withDescription("only items of this type, e.g. skill (repeatable; exact)"), Options.repeated),
    adapter: Options.text("adapter").pipe(Options.withDescription("only items read by this adapter (repeatable)"), Options.repeated),
    belief: Options.choice("belief", ["current", "historical", "all"] as const).pipe(
      Options.withDescription("current (default) hides knowledge replaced by a successor; historical lists only replaced or deprecated items; all both"),
      Options.withDefault("current" as const)
    ),
    includeProposed: Options.boolean("include-proposed").pipe(Options.withDescription("include items marked quality: proposed")),
    filter: Options.keyValueMap("filter").pipe(Options.withDescription("scope key=value the item must have (repeatable)"), Options.optional),
    limit: Options.integer("limit").pipe(Options.withDescription("at most N hits (default: config search.limit, else 20; at most 200)"), Options.optional),
    noTrack: Options.boolean("no-track").pipe(Options.withDescription("do not record this search in the usage log")),
    ...globalOptions
  },
  (o) => {
    const limit = Option.getOrUndefined(o.limit)
    const input: SearchInput = {
      query: o.query.join(" "),
      limit,
      bundles: list(o.bundle),
      types: list(o.type),
      adapters: list(o.adapter),
      belief: o.belief,
      includeProposed: o.includeProposed,
      filters: Option.match(o.filter, { onNone: () => undefined, onSome: (map) => Object.fromEntries(HashMap.toEntries(map)) }),
      track: !o.noTrack,
      source: eventSource()
    }
    const program = Effect.zipRight(
      limit !== undefined && limit < 1 ? Effect.fail(new UsageError({ message: `--limit must be at least 1, not ${limit}`, hint: "e.g. --limit 10 (at most 200)" })) : Effect.void,
      search(input)
    )
    return runCommand(o, program, searchView)
  }
).pipe(
  Command.withDescription(
    "Search every bundle in the local index: best matches first, no network. Example: akm search \"rotate database credentials\" --type skill --limit 5"
  )
)
