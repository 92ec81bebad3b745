import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { UsageError } from "../domain/Errors.js"
import { shortId } from "../domain/Proposal.js"
import { distil, distilDecide, DISTIL_CHOICES, type DecideResult, type DistilResult } from "../programs/ledger/distil.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const distilText: View<DistilResult>["text"] = (r, s) =>
  r.items.length === 0
    ? `${s.green("✓")} nothing to distil in ${r.bundle}: no failure has recurred without a decision`
    : r.items
      .map((item) =>
        [
          `${s.bold(item.title)} ${s.dim(`(failure/${item.id})`)}`,
          `  ${item.question}`,
          ...(item.recurredAfter === undefined ? [] : [s.yellow(`  it recurred after it was made a ${item.recurredAfter.choice} on ${item.recurredAfter.decided}`)]),
          "",
          `  drafted rule ${item.draft.rule.path}:`,
          ...item.draft.rule.text.trimEnd().split("\n").map((l) => (l === "" ? "" : `    ${l}`)),
          "",
          `  decide: akm distil decide ${item.id} --as rule|skill|neither --note "why"`
        ].join("\n"))
      .join("\n\n")

const decideText: View<DecideResult>["text"] = (r, s) =>
  [
    `${s.green("✓")} decided: treat ${r.fingerprint} as ${r.choice}`,
    `  ${r.decision.path}`,
    ...(r.proposal === undefined ? [r.choice === "neither" ? s.dim("  it will not be asked about again") : ""] : [`  ${s.yellow("…")} proposal ${shortId(r.proposal.id)} is ${r.proposal.status}: ${r.proposal.path}`, s.dim(`  ${r.proposal.hint}`)])
  ].filter((l) => l !== "").join("\n")

const distilView: View<DistilResult> = { text: distilText, rows: (r) => r.items }
const decideView: View<DecideResult> = { text: decideText }

const decideUsage = (message: string) => new UsageError({ message, hint: "akm distil decide <id> --as rule|skill|neither --note \"why\"" })

export const distilCommand = Command.make(
  "distil",
  {
    action: Args.choice([["decide", "decide"]] as const, { name: "decide" }).pipe(Args.withDescription("`decide` records the decision for one failure"), Args.optional),
    id: Args.text({ name: "id" }).pipe(Args.withDescription("with decide: the failure's id as `akm distil` lists it"), Args.optional),
    as: Options.choice("as", DISTIL_CHOICES).pipe(Options.withDescription("with decide: rule, skill or neither"), Options.optional),
    note: Options.text("note").pipe(Options.withDescription("with decide: why (required)"), Options.optional),
    cost: Options.text("cost").pipe(Options.withDescription("with decide: the cost accepted (default: none stated)"), Options.optional),
    bundle: Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder, else the only one)"), Options.optional),
    ...globalOptions
  },
  (o) => {
    const bundle = Option.getOrUndefined(o.bundle)
    if (Option.isNone(o.action)) {
      const stray = Option.isSome(o.as) || Option.isSome(o.note) || Option.isSome(o.cost) || Option.isSome(o.id)
      return runCommand(o, stray ? Effect.fail(decideUsage("--as, --note, --cost and an id belong to `akm distil decide`")) : distil({ bundle, cwd: callerContext().cwd }), distilView)
    }
    if (Option.isNone(o.id) || Option.isNone(o.as) || Option.isNone(o.note)) return runCommand(o, Effect.fail(decideUsage("decide needs the failure's id, --as and --note")), decideView)
    return runCommand(o, distilDecide({ id: o.id.value, as: o.as.value, note: o.note.value, cost: Option.getOrUndefined(o.cost), bundle, cwd: callerContext().cwd }), decideView)
  }
).pipe(Command.withDescription("Turn failures seen twice into a rule, a skill or neither: each comes with a drafted rule, and `decide` records the choice. Example: akm distil decide lock-timeout-3f9a0c71e2b5 --as rule --note \"cheap to enforce\""))

