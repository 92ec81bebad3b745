import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import * as path from "node:path"
import { UsageError } from "../domain/Errors.js"
import { taskAdd, taskDisable, taskEnable, taskHistory, taskList, taskRun } from "../programs/runtime/task.js"
import { directView } from "./directResult.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

/**
 * This akm as the scheduler must start it: absolute node and launcher paths
 * (cron's PATH rarely holds either). The launcher is the script node was
 * given (a global npm install's link keeps working as long as akm is installed).
 */
const akmInvocation = (): ReadonlyArray<string> => [process.execPath, path.resolve(process.argv[1] ?? "akm")]

type Added = Effect.Effect.Success<ReturnType<typeof taskAdd>>
type Enabled = Effect.Effect.Success<ReturnType<typeof taskEnable>>
type Listed = Effect.Effect.Success<ReturnType<typeof taskList>>
type History = Effect.Effect.Success<ReturnType<typeof taskHistory>>

const created = directView("created")
const addView: View<Added> = {
  text: (r, s) => [created.text(r, s), s.dim(`  schedule ${r.schedule}; next: ${r.next.join(", ")}`), s.dim(`  nothing is scheduled until you enable it: akm task enable ${r.ref ?? r.title}`)].join("\n")
}

const enableView: View<Enabled> = {
  text: (r, s) =>
    [
      r.changed ? `${s.green("✓")} enabled ${s.bold(r.alias)} (${r.ref}, ${r.target}) in ${r.where}` : `${s.dim("=")} ${r.alias} is already enabled in ${r.where}`,
      s.dim(`  schedule ${r.schedule}; next: ${r.next.join(", ")}`),
      ...(r.pendingReview ? [s.yellow(`  update pending review: the file changed since it was approved; the entry keeps the approved definition until \`akm task enable ${r.alias} --update\``)] : [])
    ].join("\n")
}

const target = Args.text({ name: "ref|alias" }).pipe(Args.withDescription("the task, or the alias it was enabled as"))

const addCommand = Command.make(
  "add",
  {
    name: Args.text({ name: "name" }).pipe(Args.withDescription("the task's name: tasks/<name>.yml in an akm bundle")),
    schedule: Options.text("schedule").pipe(Options.withPseudoName("CRON"), Options.withDescription("five cron fields (\"0 3 * * *\") or @hourly, @daily, @weekly, @monthly, @yearly, @reboot")),
    command: Options.text("command").pipe(Options.withDescription("a shell command to run (a leading `akm` runs this akm)"), Options.optional),
    workflow: Options.text("workflow").pipe(Options.withDescription("a workflow ref to run with `akm workflow run`"), Options.optional),
    prompt: Options.text("prompt").pipe(Options.withDescription("a prompt for the agent in runtime.agentCommand"), Options.optional),
    description: Options.text("description").pipe(Options.withDescription("a one-line description"), Options.optional),
    bundle: Options.text("bundle").pipe(Options.withDescription("the bundle to write to (default: defaultBundle)"), Options.optional),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      taskAdd({
        name: o.name,
        schedule: o.schedule,
        command: Option.getOrUndefined(o.command),
        workflow: Option.getOrUndefined(o.workflow),
        prompt: Option.getOrUndefined(o.prompt),
        description: Option.getOrUndefined(o.description),
        bundle: Option.getOrUndefined(o.bundle),
        ...callerContext()
      }),
      addView
    )
).pipe(Command.withDescription("Write a task definition (tasks/<name>.yml, as a proposal); it schedules nothing until `akm task enable`. Example: akm task add nightly-improve --schedule \"0 3 * * *\" --command \"akm improve --skip-if-locked\""))

const enableCommand = Command.make(
  "enable",
  {
    target,
    update: Options.boolean("update").pipe(Options.withDescription("approve the task file's current definition after reviewing what changed")),
    as: Options.text("as").pipe(Options.withDescription("the alias to enable it as (default: its name)"), Options.optional),
    ...globalOptions
  },
  (o) => runCommand(o, taskEnable({ target: o.target, update: o.update, alias: Option.getOrUndefined(o.as), akm: akmInvocation() }), enableView)
).pipe(Command.withDescription("Bind a task (digest pinned) and write its entry into akm's marked block of the crontab (or runtime.crontabFile). Example: akm task enable nightly-improve"))

const disableCommand = Command.make(
  "disable",
  { target, ...globalOptions },
  (o) =>
    runCommand(
      o,
      taskDisable(o.target, akmInvocation()),
      { text: (r, s) => (r.changed ? `${s.green("✓")} disabled ${r.alias} (${r.ref}): its entry is gone from ${r.where}` : `${s.dim("=")} ${r.alias} is not enabled`) }
    )
).pipe(Command.withDescription("Remove a task's scheduler entry (the block goes when the last one does); its binding and history stay. Example: akm task disable nightly-improve"))

const runTaskCommand = Command.make(
  "run",
  {
    target,
    scheduled: Options.boolean("scheduled").pipe(Options.withDescription("set by the scheduler entry: recorded as a scheduled run; skipped when the task is no longer enabled")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      taskRun({ target: o.target, scheduled: o.scheduled, akm: akmInvocation(), cwd: callerContext().cwd }),
      { text: (r, s) => (r.skipped ? s.dim(`${r.alias} skipped`) : `${r.exit === 0 ? s.green("✓") : s.red("✗")} ${r.alias}: ${r.status}, exit ${r.exit} in ${(r.durationMs / 1000).toFixed(1)}s`) },
      (r) => r.exit
    )
).pipe(Command.withDescription("Run a task once now and record it in its history; exits with the task's exit code. Example: akm task run nightly-improve"))

const STATUS_STYLE = { enabled: "green", "update pending review": "yellow", disabled: "dim", "not enabled": "dim", missing: "red" } as const

const listView: View<Listed> = {
  text: (r, s) =>
    r.tasks.length === 0
      ? s.dim("no tasks (write one with `akm task add <name> --schedule … --command …`)")
      : table([
        ["TASK", "ALIAS", "SCHEDULE", "STATUS", "NEXT", "LAST RUN"].map(s.dim),
        ...r.tasks.map((t) => [
          t.ref,
          t.alias ?? "",
          t.schedule ?? "",
          s[STATUS_STYLE[t.status]](t.scheduler === undefined ? t.status : `${t.status} (${t.scheduler})`),
          t.next[0] ?? "",
          t.lastRun === undefined ? "" : `${t.lastRun.status} ${t.lastRun.at.slice(0, 16).replace("T", " ")}`
        ])
      ]),
  rows: (r) => r.tasks
}

const listCommand = Command.make("list", { ...globalOptions }, (o) => runCommand(o, taskList(), listView)).pipe(
  Command.withDescription("List tasks: schedule, enabled or not, \"update pending review\" when a file changed since it was approved, next fire time, last run. Example: akm task list")
)

const historyView: View<History> = {
  text: (r, s) =>
    r.runs.length === 0
      ? s.dim("no runs yet")
      : table([
        ["STARTED", "TASK", "TRIGGER", "STATUS", "EXIT", "DURATION"].map(s.dim),
        ...r.runs.map((run) => [run.startedAt.replace("T", " ").slice(0, 19), run.alias, run.trigger, run.status, run.exit === undefined ? "" : String(run.exit), run.durationMs === undefined ? "" : `${(run.durationMs / 1000).toFixed(1)}s`])
      ]),
  rows: (r) => r.runs
}

const historyCommand = Command.make(
  "history",
  {
    target: target.pipe(Args.optional),
    last: Options.integer("last").pipe(Options.withDescription("how many runs, newest first"), Options.withDefault(20)),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      o.last < 1 ? Effect.fail(new UsageError({ message: "--last takes a number of runs, 1 or more", hint: "e.g. --last 10" })) : taskHistory(Option.getOrUndefined(o.target), o.last),
      historyView
    )
).pipe(Command.withDescription("Show task runs, newest first: trigger (manual or scheduled), status, exit code, duration. Example: akm task history nightly-improve"))

export const taskCommand = Command.make("task").pipe(
  Command.withDescription("Scheduled tasks: write, enable (crontab), disable, run now, list, history. Example: akm task enable nightly-improve"),
  Command.withSubcommands([addCommand, enableCommand, disableCommand, runTaskCommand, listCommand, historyCommand])
)
