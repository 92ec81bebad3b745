import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Console, Effect, Exit, Layer } from "effect"
import { VERSION } from "../version.js"
import { redact } from "../domain/Redaction.js"
import { redactReport, reportCause, ExitCode } from "./exitCodes.js"
import { runInterruptible } from "./interruptible.js"
import { formatFromArgv, hoistGlobalOptions } from "./options.js"
import { forTerminal, neutralise, renderError, styleFor } from "./render.js"
import { akmCommand } from "./root.js"
import { cliSeams, Reported, type CliSeams } from "./run.js"
import { searchOptionMisuse } from "./search.js"

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

/**
 * Runs the CLI on argv and resolves to the process exit code (spec 09 §2).
 * `seams` adds layers to every command (a test-only entry point passes the
 * CrashPoints test layer); bin/akm.js passes none.
 */
export const runCli = async (argv: ReadonlyArray<string>, seams: CliSeams = {}): Promise<number> => {
  const captured: Array<string> = []
  const args = hoistGlobalOptions(argv)
  // An unknown option of `akm search` would reach its query words (@effect/cli takes it for one).
  const misuse = searchOptionMisuse(args)
  const parsed: Effect.Effect<void, unknown, Effect.Effect.Context<ReturnType<typeof cli>>> = misuse === undefined ? cli(["node", "akm", ...args]) : Effect.fail(misuse)
  const program = parsed.pipe(
    Effect.locally(cliSeams, seams),
    Effect.provide(Layer.mergeAll(NodeContext.layer, capturingConsole(captured), CliConfig.layer({ showBuiltIns: true })))
  )
  const { exit, signal } = await runInterruptible(program)
  if (Exit.isSuccess(exit)) return ExitCode.ok
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "Some" && failure.value instanceof Reported) return failure.value.exit
  const format = formatFromArgv(argv, process.stdout.isTTY === true)
  const reported = reportCause(exit.cause)
  // 130 for SIGINT, 143 for SIGTERM (spec 09 §2).
  const report = reported.code === "interrupted" && signal === "SIGTERM" ? { ...reported, exit: ExitCode.terminated } : reported
  const isUsage = failure._tag === "Some" && ValidationError.isValidationError(failure.value)
  // No workspace here: the redactor's patterns only (run.ts redacts a command's own errors with its known values too).
  const detail = redact(stripAnsi(captured.join("\n")).trim())
  const message = isUsage && detail !== "" ? detail : report.message
  if (format === "text" && isUsage) {
    process.stderr.write(forTerminal(`${detail}\n${styleFor(process.stderr.isTTY === true, process.env).dim("hint:")} ${redact(report.hint)}\n`))
  } else {
    process.stderr.write(renderError(format, redactReport({ ...report, message }), styleFor(process.stderr.isTTY === true, process.env)))
  }
  if (!isUsage && report.exit === ExitCode.internal && argv.includes("--verbose")) process.stderr.write(`${neutralise(redact(Cause.pretty(exit.cause)))}\n`)
  return report.exit
}
