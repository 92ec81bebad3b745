import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, FiberRef, Layer, Option } from "effect"
import { IMPROVE_RECIPES, type RunRecord } from "../domain/Improve.js"
import { ImproveComposed } from "../layers/improve/ImproveLive.js"
import { GeneratorLive } from "../layers/generator/GeneratorLive.js"
import { improve, improveRuns } from "../programs/improve.js"
import type { ImproveResult } from "../services/Improve.js"
import { globalOptions } from "./options.js"
import { table, type Style, type View } from "./render.js"
import { cliSeams, runCommand, type CliSeams } from "./run.js"

/**
 * Evidence and generator for Improve: a test entry point's, else the shipped
 * ones — the EvidenceStore of the command's live layer and the generator
 * config.yaml names (built here only, so no other command reads that section).
 */
const improveServices = (seams: CliSeams) => seams.improve ?? GeneratorLive

/** Provides Improve to a program, built over the command's live layer (what `runCommand` provides). */
export const withImprove = <A, E, R>(program: Effect.Effect<A, E, R>) =>
  Effect.flatMap(FiberRef.get(cliSeams), (seams) => Effect.succeed(Effect.provide(program, ImproveComposed.pipe(Layer.provide(improveServices(seams))))))

const outcomeColour = (outcome: string, s: Style): string =>
  outcome === "proposed" || outcome === "auto-applied" ? s.green(outcome) : outcome === "gate-failed" || outcome === "generation-failed" || outcome === "refused" ? s.red(outcome) : outcome === "planned" ? s.yellow(outcome) : s.dim(outcome)

const runText = (run: RunRecord, s: Style): string => {
  const head = run.dryRun
    ? `${s.bold("dry run")}: nothing written, no generator called (${run.generator})`
    : `${s.bold(`improve run ${run.id.slice(0, 8)}`)}: ${run.proposals.length} proposal${run.proposals.length === 1 ? "" : "s"}${run.autoApplied.length === 0 ? "" : `, ${run.autoApplied.length} auto-applied`}, ${run.modelCalls} model call${run.modelCalls === 1 ? "" : "s"} (${run.cachedCalls} cached), ${run.durationMs} ms`
  if (run.targets.length === 0) return `${head}\nnothing to do: no open corrective evidence (add some with \`akm feedback <ref> --negative --reason "…"\`)`
  return [
    head,
    table(run.targets.map((t) => [outcomeColour(t.outcome, s), t.recipe, t.target, [t.proposalId === undefined ? "" : `proposal ${t.proposalId.slice(0, 8)}`, t.packetId === undefined ? "" : `packet ${t.packetId}`, t.reason ?? ""].filter((x) => x !== "").join(" — ")])),
    ...(run.proposals.length === 0 ? [] : [s.dim(`review with: akm proposal show ${run.proposals[0]!.slice(0, 8)}`)])
  ].join("\n")
}

const resultView: View<ImproveResult> = {
  text: (r, s) => (r._tag === "Locked" ? `${s.yellow("skipped")}: another improve run holds the lease (${r.holder.replace(/^the workspace is busy: /, "")})` : runText(r.run, s))
}

const runsView: View<{ readonly runs: ReadonlyArray<RunRecord> }> = {
  text: (r, s) =>
    r.runs.length === 0
      ? "no improve runs yet"
      : table([
        [s.dim("RUN"), s.dim("STARTED"), s.dim("STATUS"), s.dim("TARGETS"), s.dim("PROPOSALS"), s.dim("MODEL CALLS"), s.dim("TOKENS"), s.dim("MS")],
        ...r.runs.map((run) => [run.id.slice(0, 8), run.startedAt.slice(0, 19).replace("T", " "), run.status, String(run.targets.length), String(run.proposals.length), `${run.modelCalls} (+${run.cachedCalls} cached)`, String(run.inputTokens + run.outputTokens), String(run.durationMs)])
      ]),
  rows: (r) => r.runs
}

const runs = Command.make(
  "runs",
  { last: Options.integer("last").pipe(Options.withDescription("how many runs, newest first"), Options.withDefault(10)), ...globalOptions },
  (o) => Effect.flatMap(withImprove(Effect.map(improveRuns(o.last), (list) => ({ runs: list }))), (program) => runCommand(o, program, runsView))
).pipe(Command.withDescription("List the last improve runs: targets, proposals, model calls, duration. Example: akm improve runs --last 5"))

export const improveCommand = Command.make(
  "improve",
  {
    recipe: Options.choice("recipe", IMPROVE_RECIPES).pipe(Options.withDescription("only this recipe: revise (existing items) or learn (new items)"), Options.optional),
    ref: Options.text("ref").pipe(Options.withDescription("only evidence about this item"), Options.optional),
    bundle: Options.text("bundle").pipe(Options.withDescription("revise: only items of this bundle; learn: write new items here"), Options.optional),
    limit: Options.integer("limit").pipe(Options.withDescription("at most this many attempts (default 10)"), Options.optional),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("print what would be attempted and why; write nothing, call no model")),
    skipIfLocked: Options.boolean("skip-if-locked").pipe(Options.withDescription("exit 0 at once when another run holds the improve lease (for cron)")),
    budgetMs: Options.integer("budget-ms").pipe(Options.withDescription("start no new attempt after this many milliseconds"), Options.optional),
    force: Options.boolean("force").pipe(Options.withDescription("attempt again what already settled with the same inputs")),
    ...globalOptions
  },
  (o) =>
    Effect.flatMap(
      withImprove(improve({
        recipe: Option.getOrUndefined(o.recipe),
        ref: Option.getOrUndefined(o.ref),
        bundle: Option.getOrUndefined(o.bundle),
        limit: Option.getOrUndefined(o.limit),
        dryRun: o.dryRun,
        skipIfLocked: o.skipIfLocked,
        budgetMs: Option.getOrUndefined(o.budgetMs),
        force: o.force
      })),
      (program) => runCommand(o, program, resultView)
    )
).pipe(
  Command.withDescription("Improve items from corrective evidence: verified candidates become proposals for review. Never prompts. Example: akm improve --dry-run"),
  Command.withSubcommands([runs])
)
