import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Console, Effect, Exit, Layer } from "effect"
import { VERSION } from "../version.js"
import { redact } from "../domain/Redaction.js"
import { checkArgv } from "./argvCheck.js"
import { runComplete } from "./completeRun.js"
import { describeCommand, type CommandNode } from "./commandTree.js"
import { redactReport, reportCause, ExitCode, usageMessage } from "./exitCodes.js"
import { renderHelp } from "./help.js"
import { runInterruptible } from "./interruptible.js"
import { formatFromArgv, hoistGlobalOptions } from "./options.js"
import { forTerminal, neutralise, renderError, styleFor } from "./render.js"
import { akmCommand } from "./root.js"
import { cliSeams, Reported, type CliSeams } from "./run.js"

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, "")

/** Help text is coloured only on a terminal, and never with NO_COLOR (spec 09 §1). */
const plainOutput = (): boolean => process.stdout.isTTY !== true || (process.env.NO_COLOR ?? "") !== ""

/**
 * @effect/cli prints parse problems through Console.error; capture them so a
 * usage error can go out as the JSON envelope when stdout is not a terminal.
 */
const capturingConsole = (captured: Array<string>) =>
  Console.setConsole({
    ...globalThis.console,
    [Console.TypeId]: Console.TypeId,
    unsafe: globalThis.console,
    assert: () => Effect.void,
    clear: Effect.void,
    count: () => Effect.void,
    countReset: () => Effect.void,
    debug: () => Effect.void,
    dir: () => Effect.void,
    dirxml: () => Effect.void,
    error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void captured.push(args.map(String).join(" "))),
    group: () => Effect.void,
    groupEnd: Effect.void,
    info: (...args: ReadonlyArray<unknown>) => Effect.sync(() => console.info(...args)),
    log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => console.log(...args.map((a) => (plainOutput() ? stripAnsi(String(a)) : a)))),
    table: () => Effect.void,
    time: () => Effect.void,
    timeEnd: () => Effect.void,
    timeLog: () => Effect.void,
    trace: () => Effect.void,
    warn: (...args: ReadonlyArray<unknown>) => Effect.sync(() => console.warn(...args))
  } as unknown as Console.Console)

const cli = Command.run(akmCommand, { name: "akm", version: VERSION })

let described: CommandNode | undefined
/** The command tree, read once from the descriptors. */
export const commandTree = (): CommandNode => (described ??= describeCommand(akmCommand as never))

/**
 * The help of every command, as `akm <command…> --help` prints it, by the
 * command's words ("" for `akm --help`). Help depends on nothing but the
 * build (no terminal styling, no workspace), so scripts/build.mjs writes
 * these to dist/cli/help.json and bin/akm.js prints them without loading the
 * CLI (docs/decisions/0013-fast-read-commands.md).
 */
export const helpTexts = (): Record<string, string> => {
  const texts: Record<string, string> = {}
  const visit = (node: CommandNode): void => {
    texts[node.path.join(" ")] = forTerminal(renderHelp(node, VERSION))
    node.subcommands.forEach(visit)
  }
  visit(commandTree())
  return texts
}

/**
 * Runs the CLI on argv and resolves to the process exit code (spec 09 §2).
 * `seams` adds layers to every command (a test-only entry point passes the
 * CrashPoints test layer); bin/akm.js passes none. `tree` is the command
 * tree the build wrote (dist/cli/command-tree.json): reading it is a few
 * milliseconds, describing the commands again a tenth of a second or more.
 */
export const runCli = async (argv: ReadonlyArray<string>, seams: CliSeams = {}, tree?: CommandNode): Promise<number> => {
  if (tree !== undefined && Array.isArray(tree.subcommands)) described ??= tree
  // Plumbing for the shell scripts of `akm completions`, not a command: its words are never parsed as options.
  if (argv[0] === "__complete") return runComplete(commandTree(), argv.slice(1))
  const hoisted = hoistGlobalOptions(argv)
  const format = formatFromArgv(argv, process.stdout.isTTY === true)
  const stderrStyle = styleFor(process.stderr.isTTY === true, process.env)
  // Unknown options and commands, --help and `--` are settled here, the same way for every command.
  const checked = checkArgv(commandTree(), hoisted)
  if (checked._tag === "Help") {
    process.stdout.write(forTerminal(renderHelp(checked.command, VERSION)))
    return ExitCode.ok
  }
  if (checked._tag === "Usage") {
    process.stderr.write(renderError(format, redactReport({ exit: ExitCode.usage, code: "usage", message: checked.message, hint: checked.hint }), stderrStyle))
    return ExitCode.usage
  }
  if (checked.command.path.length === 0) {
    // Only `akm --version` passes the check without a command.
    process.stdout.write(`${VERSION}\n`)
    return ExitCode.ok
  }
  const captured: Array<string> = []
  const program = cli(["node", "akm", ...checked.argv]).pipe(
    Effect.locally(cliSeams, seams),
    Effect.provide(Layer.mergeAll(NodeContext.layer, capturingConsole(captured), CliConfig.layer({ showBuiltIns: false })))
  )
  const { exit, signal } = await runInterruptible(program)
  if (Exit.isSuccess(exit)) return ExitCode.ok
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "Some" && failure.value instanceof Reported) return failure.value.exit
  const reported = reportCause(exit.cause)
  // 130 for SIGINT, 143 for SIGTERM (spec 09 §2).
  const report = reported.code === "interrupted" && signal === "SIGTERM" ? { ...reported, exit: ExitCode.terminated } : reported
  const isUsage = failure._tag === "Some" && ValidationError.isValidationError(failure.value)
  // No workspace here: the redactor's patterns only (run.ts redacts a command's own errors with its known values too).
  const detail = redact(stripAnsi(captured.join("\n")).trim())
  const command = ["akm", ...checked.command.path].join(" ")
  const usage = isUsage ? { ...report, message: usageMessage(detail === "" ? report.message : detail), hint: `run \`${command} --help\`` } : report
  process.stderr.write(renderError(format, redactReport(usage), stderrStyle))
  if (!isUsage && report.exit === ExitCode.internal && argv.includes("--verbose")) process.stderr.write(`${neutralise(redact(Cause.pretty(exit.cause)))}\n`)
  return report.exit
}
