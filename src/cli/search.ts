import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, HashMap, Option } from "effect"
import { search } from "../programs/search.js"
import type { SearchResult } from "../domain/Search.js"
import { globalOptions, resolveFormat } from "./options.js"
import { forTerminal, styleFor } from "./render.js"
import { runCommand } from "./run.js"
import { checkLimit, outputWidth, searchInput, searchView, truncationNote } from "./searchCommon.js"

export const searchCommand = Command.make(
  "search",
  {
    query: Args.text({ name: "query" }).pipe(
      Args.withDescription("words to look for (quote a \"phrase\"); `prefix/` or `bundle//` lists items; empty lists everything"),
      Args.repeated
    ),
    bundle: Options.text("bundle").pipe(Options.withDescription("only this bundle (repeatable)"), Options.repeated),
    type: Options.text("type").pipe(Options.withDescription("only items of this type, e.g. skill (repeatable; any case)"), Options.repeated),
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
    const filter = Option.match(o.filter, { onNone: () => undefined, onSome: (map) => Object.fromEntries(HashMap.toEntries(map)) })
    // Keep in step with fast/searchArgv.ts, which parses the common shapes of this command without @effect/cli.
    const options = { ...o, limit, filter }
    const input = searchInput(options)
    const stdout = process.stdout
    const note = (r: SearchResult) =>
      Effect.sync(() => {
        const text = truncationNote(r, resolveFormat(o.format, stdout.isTTY === true), o.quiet, styleFor(process.stderr.isTTY === true, process.env))
        if (text !== undefined) process.stderr.write(forTerminal(text))
      })
    return runCommand(o, Effect.zipRight(checkLimit(limit), Effect.tap(search(input), note)), searchView(options, outputWidth(stdout, process.env)))
  }
).pipe(
  Command.withDescription(
    "Search every bundle in the local index: best matches first, no network. Example: akm search \"rotate database credentials\" --type skill --limit 5"
  )
)
