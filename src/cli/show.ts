import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { SHOW_LEVELS } from "../domain/Show.js"
import { show } from "../programs/show.js"
import { eventSource } from "./eventSource.js"
import { globalOptions } from "./options.js"
import { runCommand } from "./run.js"
import { showView } from "./showView.js"

export const showCommand = Command.make(
  "show",
  {
    ref: Args.text({ name: "ref" }).pipe(Args.withDescription("bundle//concept/id, optionally #section; a short ref tries the default bundle, then each bundle in order")),
    level: Options.choice("level", SHOW_LEVELS).pipe(
      Options.withDescription("card (facts), outline (card + headings, links, resources) or full (the text; default)"),
      Options.withDefault("full" as const)
    ),
    maxTokens: Options.integer("max-tokens").pipe(Options.withDescription("cut the text before a heading so it stays within N tokens"), Options.optional),
    lines: Options.text("lines").pipe(Options.withPseudoName("A:B"), Options.withDescription("only these lines of the file: A:B, A: or :B (1-based, inclusive)"), Options.optional),
    noTrack: Options.boolean("no-track").pipe(Options.withDescription("do not record this read in the usage log")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      show({
        ref: o.ref,
        level: o.level,
        maxTokens: Option.getOrUndefined(o.maxTokens),
        lines: Option.getOrUndefined(o.lines),
        track: !o.noTrack,
        source: eventSource()
      }),
      showView
    )
).pipe(Command.withDescription("Show one item from the index: its card, its outline or its text. Example: akm show notes//guides/setup#install --max-tokens 1500"))
