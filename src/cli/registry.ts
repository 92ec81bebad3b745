import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { BundleHttpClientLive } from "../layers/http/BundleHttpClient.js"
import { NO_REGISTRIES_HINT, registrySearch, type RegistrySearchResult } from "../programs/registry/search.js"
import { globalOptions } from "./options.js"
import { table, type Style, type View } from "./render.js"
import { runCommand } from "./run.js"

const searchText = (r: RegistrySearchResult, s: Style): string => {
  // The example is printed here too: -q silences stderr, and stdout must not point at what it hid.
  if (r.registries.length === 0) return `${NO_REGISTRIES_HINT}\n(see docs/bundles.md#registries)`
  const failed = r.failed.map((f) => s.red(`✗ ${f.registry}: ${f.url} ${f.reason}`))
  if (r.hits.length === 0) return [`no bundles match '${r.query}'`, ...failed].join("\n")
  const blocks = r.hits.map((h) =>
    table([
      [s.bold(h.name), s.dim(`${h.registry}${h.tags.length === 0 ? "" : ` · ${h.tags.join(", ")}`}`)],
      ["", h.description === "" ? s.dim("(no description)") : h.description],
      ["", s.green(h.install)]
    ]))
  return [...blocks, ...failed].join("\n\n")
}

const searchView: View<RegistrySearchResult> = {
  text: searchText,
  md: (r) =>
    ["| name | description | install |", "|---|---|---|", ...r.hits.map((h) => `| ${h.name} | ${h.description.replace(/\|/g, "\\|")} | \`${h.install}\` |`)].join("\n"),
  rows: (r) => r.hits
}

const search = Command.make(
  "search",
  {
    query: Args.text({ name: "query" }).pipe(Args.withDescription("words to look for in bundle names, descriptions and tags")),
    registry: Options.text("registry").pipe(Options.withDescription("ask only the registry of this name (config.yaml `registries`)"), Options.optional),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      // The bundle HTTP client (address policy, website.allowHosts) is only built for this command.
      registrySearch({ query: o.query, registry: Option.getOrUndefined(o.registry) }).pipe(Effect.provide(BundleHttpClientLive())),
      searchView,
      (r) => (r.ok ? 0 : 1)
    )
).pipe(Command.withDescription("Find installable bundles in the registries configured in config.yaml; prints each with its `akm bundle add` command. Example: akm registry search kubernetes"))

export const registryCommand = Command.make("registry").pipe(
  Command.withDescription("Discover bundles in configured registries (never mixed into local search). Example: akm registry search runbooks"),
  Command.withSubcommands([search])
)
