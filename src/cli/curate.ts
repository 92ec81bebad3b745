import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { CURATE_DEFAULTS } from "../domain/Curate.js"
import { MAX_LIMIT } from "../domain/Search.js"
import { curate } from "../programs/curate.js"
import { eventSource } from "./eventSource.js"
import { checkLimitRange } from "./limit.js"
import { globalOptions } from "./options.js"
import { runCommand } from "./run.js"
import { curateView } from "./curateView.js"

export const curateCommand = Command.make(
  "curate",
  {
    task: Args.text({ name: "task" }).pipe(Args.withDescription("what you are about to do, in your own words")),
    budget: Options.integer("budget").pipe(Options.withDescription(`tokens the result may use (default ${CURATE_DEFAULTS.budget})`), Options.withDefault(CURATE_DEFAULTS.budget)),
    bundle: Options.text("bundle").pipe(Options.withDescription("only items of this bundle (repeatable)"), Options.repeated),
    limit: Options.integer("limit").pipe(Options.withDescription(`items at most, 1 to ${MAX_LIMIT} (default ${CURATE_DEFAULTS.maxItems})`), Options.optional),
    noTrack: Options.boolean("no-track").pipe(Options.withDescription("do not record this in the usage log")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      Effect.zipRight(
        checkLimitRange(Option.getOrUndefined(o.limit)),
        curate({
          task: o.task,
          budget: o.budget,
          bundles: o.bundle.length === 0 ? undefined : o.bundle,
          limit: Option.getOrUndefined(o.limit),
          track: !o.noTrack,
          source: eventSource()
        })
      ),
      curateView
    )
).pipe(Command.withDescription("Pick the items an agent needs for a task, within a token budget: full text for the best few, cards for the rest. Example: akm curate \"deploy the app with docker compose\" --budget 3000"))
