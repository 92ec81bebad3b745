import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { UsageError } from "../domain/Errors.js"
import { feedback, type FeedbackResult } from "../programs/feedback.js"
import { eventSource } from "./eventSource.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { runCommand } from "./run.js"
import { shellCommand } from "../domain/ShellQuote.js"

export const feedbackView: View<FeedbackResult> = {
  text: (r, s) =>
    [
      `${r.polarity === "positive" ? s.green("+") : s.red("-")} ${r.ref}${r.reason === null ? "" : `: ${r.reason}`}`,
      ...(Object.keys(r.tags).length === 0 ? [] : [`${s.dim("tags:")} ${Object.entries(r.tags).map(([k, v]) => `${k}=${v}`).join(", ")}`]),
      r.utility === null ? s.dim(`recorded as ${r.source} feedback (teaches no utility)`) : `${s.dim("utility:")} ${r.utility.toFixed(3)}`
    ].join("\n")
}

export const feedbackCommand = Command.make(
  "feedback",
  {
    ref: Args.text({ name: "ref" }).pipe(Args.withDescription("the item the feedback is about")),
    positive: Options.boolean("positive").pipe(Options.withDescription("the item helped")),
    negative: Options.boolean("negative").pipe(Options.withDescription("the item was wrong or unhelpful (needs --reason)")),
    reason: Options.text("reason").pipe(Options.withDescription("what was right or wrong; required with --negative"), Options.optional),
    tag: Options.text("tag").pipe(Options.withPseudoName("key=value"), Options.withDescription("key=value context, e.g. --tag task=deploy (repeatable)"), Options.repeated),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.positive === o.negative
        ? Effect.fail(new UsageError({
          message: o.positive ? "--positive and --negative contradict each other" : "say whether the item helped: --positive or --negative",
          hint: `e.g. ${shellCommand("akm feedback", o.ref)} --positive, or --negative --reason "…"`
        }))
        : feedback({ ref: o.ref, polarity: o.positive ? "positive" : "negative", reason: Option.getOrUndefined(o.reason), tags: o.tag, source: eventSource() }),
      feedbackView
    )
).pipe(Command.withDescription("Record whether an item helped; it teaches search which items to rank higher. Example: akm feedback notes//deploy --negative --reason \"step 3 is outdated\""))
