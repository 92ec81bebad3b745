import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option, type Effect } from "effect"
import type { StepState } from "../domain/WorkflowRun.js"
import { workflowResume, workflowRun, type RunReport } from "../programs/runtime/workflowRun.js"
import { workflowAbandon, workflowList, workflowStatus } from "../programs/runtime/workflowStatus.js"
import { ExitCode } from "./exitCodes.js"
import { globalOptions } from "./options.js"
import { table, type Style, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

type Status = Effect.Effect.Success<ReturnType<typeof workflowStatus>>
type Listed = Effect.Effect.Success<ReturnType<typeof workflowList>>
type Abandoned = Effect.Effect.Success<ReturnType<typeof workflowAbandon>>

const mark = (status: StepState["status"], s: Style): string =>
  status === "done" ? s.green("✓") : status === "failed" ? s.red("✗") : status === "waiting" ? s.yellow("…") : status === "running" ? s.yellow("▶") : s.dim("·")

const stepLines = (steps: ReadonlyArray<StepState>, s: Style): string =>
  table(steps.map((step) => [`  ${mark(step.status, s)} ${step.id}`, step.status, step.attempts > 1 ? s.dim(`${step.attempts} attempts`) : "", s.dim(step.summary ?? "")]))

/** done 0, failed 1, waiting or paused 4 (the operator or the agent has something to do). */
const exitOf = (r: RunReport): number => (r.status === "done" ? ExitCode.ok : r.status === "failed" ? ExitCode.failure : ExitCode.attention)

const runView: View<RunReport> = {
  text: (r, s) =>
    [
      `${r.status === "done" ? s.green("✓") : r.status === "failed" ? s.red("✗") : s.yellow("…")} run ${s.bold(r.id)} of ${r.workflow}: ${r.status}${r.unchanged === true ? s.dim(" (already finished; nothing ran)") : ""}`,
      stepLines(r.steps, s),
      ...(r.waiting === undefined ? [] : [`${s.bold(r.waiting.kind === "prompt" ? "prompt" : "gate")} (${r.waiting.step}):`, r.waiting.text.split("\n").map((l) => `  ${l}`).join("\n")]),
      ...(r.message === undefined || r.unchanged === true ? [] : [s.dim(r.message)])
    ].join("\n")
}

const paramOption = Options.text("param").pipe(Options.withPseudoName("k=v"), Options.withDescription("repeatable: a workflow param (over the binding's and the defaults)"), Options.repeated)
const maxSteps = Options.integer("max-steps").pipe(Options.withPseudoName("N"), Options.withDescription("run at most N steps now, then pause (resumable); default: the workflow's budget.steps"), Options.optional)
const timeout = Options.text("timeout").pipe(Options.withPseudoName("D"), Options.withDescription("stop after this long (e.g. 10m), the step in flight re-runs on resume; default: the workflow's budget"), Options.optional)
const interactiveAgent = Options.boolean("interactive-agent").pipe(Options.withDescription("print prompt steps for the calling agent and wait for `akm workflow resume` instead of running runtime.agentCommand"))

const runSub = Command.make(
  "run",
  { target: Args.text({ name: "ref|alias" }).pipe(Args.withDescription("the workflow, or the alias of its binding")), param: paramOption, maxSteps, timeout, interactiveAgent, ...globalOptions },
  (o) =>
    runCommand(
      o,
      workflowRun({ target: o.target, params: o.param, maxSteps: Option.getOrUndefined(o.maxSteps), timeout: Option.getOrUndefined(o.timeout), interactiveAgent: o.interactiveAgent, workdir: callerContext().cwd }),
      runView,
      exitOf
    )
).pipe(Command.withDescription("Run a workflow from a frozen plan: its steps in order, each step's state kept so the run survives a crash. Exit 4 while it waits at a gate or a prompt. Example: akm workflow run runtime//workflows/hello --param dir=./out"))

const runId = Args.text({ name: "run-id" }).pipe(Args.withDescription("the run, as `akm workflow list` shows it"))

const resumeSub = Command.make(
  "resume",
  {
    id: runId,
    confirm: Options.boolean("confirm").pipe(Options.withDescription("the gate the run waits at holds: pass it")),
    maxSteps,
    timeout,
    interactiveAgent,
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      workflowResume(o.id, { confirm: o.confirm, maxSteps: Option.getOrUndefined(o.maxSteps), timeout: Option.getOrUndefined(o.timeout), interactiveAgent: o.interactiveAgent }),
      runView,
      exitOf
    )
).pipe(Command.withDescription("Go on with a run from its first unfinished step (a step cut off by a crash runs again, once); a finished run is left as it is. Example: akm workflow resume 20261201-230501-3f9a1c --confirm"))

const statusView: View<Status> = {
  text: (r, s) =>
    [
      `run ${s.bold(r.id)} of ${r.workflow}: ${r.status} ${s.dim(`(started ${r.createdAt}, updated ${r.updatedAt})`)}`,
      r.frozen.intact
        ? s.dim(`  frozen plan ${r.frozen.planHash.slice(0, 12)}, workflow digest ${r.frozen.digest.slice(0, 12)}, ${r.frozen.adapter.id} ${r.frozen.adapter.version}${Object.keys(r.frozen.params).length === 0 ? "" : `, params ${Object.entries(r.frozen.params).map(([k, v]) => `${k}=${v}`).join(" ")}`}`)
        : s.red(`  ${r.frozen.problem}`),
      stepLines(r.steps, s),
      ...(r.message === undefined ? [] : [s.dim(r.message)]),
      ...(r.logs.length === 0 ? [] : [s.dim("log:"), ...r.logs.map((line) => `  ${s.dim(line.at)} ${line.message.split("\n").join("\n    ")}`)])
    ].join("\n")
}

const statusSub = Command.make(
  "status",
  { id: runId, logs: Options.integer("logs").pipe(Options.withPseudoName("N"), Options.withDescription("show the last N log lines (step output, bounded and redacted); default 5"), Options.withDefault(5)), ...globalOptions },
  (o) => runCommand(o, workflowStatus(o.id, { logLines: o.logs }), statusView)
).pipe(Command.withDescription("Show a run: each step's state and attempts, the frozen plan it runs and its latest log lines. Example: akm workflow status 20261201-230501-3f9a1c"))

const listView: View<Listed> = {
  text: (r, s) =>
    r.runs.length === 0
      ? s.dim("no workflow runs (start one with `akm workflow run <ref>`)")
      : table([["RUN", "WORKFLOW", "STATUS", "STEPS", "UPDATED"].map(s.dim), ...r.runs.map((run) => [run.id, run.workflow, run.status, `${run.done}/${run.steps}`, run.updatedAt])]),
  rows: (r) => r.runs
}

const listSub = Command.make(
  "list",
  { limit: Options.integer("limit").pipe(Options.withDescription("runs at most (default 20)"), Options.withDefault(20)), ...globalOptions },
  (o) => runCommand(o, workflowList(o.limit), listView)
).pipe(Command.withDescription("List workflow runs, newest first. Example: akm workflow list"))

const abandonView: View<Abandoned> = {
  text: (r, s) => (r.already ? `${s.dim("=")} run ${r.id} was already abandoned` : `${s.green("✓")} abandoned run ${r.id} of ${r.workflow}`)
}

const abandonSub = Command.make("abandon", { id: runId, ...globalOptions }, (o) => runCommand(o, workflowAbandon(o.id), abandonView)).pipe(
  Command.withDescription("Close a run for good: it never resumes. Example: akm workflow abandon 20261201-230501-3f9a1c")
)

export const workflowCommand = Command.make("workflow").pipe(
  Command.withDescription("Run workflows step by step from a frozen plan: run, status, list, resume, abandon. Example: akm workflow run runtime//workflows/hello --param dir=./out"),
  Command.withSubcommands([runSub, statusSub, listSub, resumeSub, abandonSub])
)
