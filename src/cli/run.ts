import { Effect, FiberRef, Option, type Layer } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import { makeAkmLive } from "../layers/AkmLive.js"
import type { Adapters } from "../services/Adapters.js"
import type { CrashPoints } from "../services/CrashPoints.js"
import type { EvidenceStore } from "../services/EvidenceStore.js"
import type { Generator } from "../services/Generator.js"
import type { StateDb } from "../layers/sqlite/StateDb.js"
import type { ImproveStore } from "../services/ImproveStore.js"
import type { SandboxIndex } from "../services/SandboxIndex.js"
import type { BundleFiles } from "../services/BundleFiles.js"
import type { ChangeValidator } from "../services/ChangeValidator.js"
import type { FileStamps } from "../services/FileStamps.js"
import type { GitHistory } from "../services/GitHistory.js"
import type { GitSync } from "../services/GitSync.js"
import type { IndexStore } from "../services/IndexStore.js"
import type { ItemProjector } from "../services/ItemProjector.js"
import type { LogStore } from "../services/LogStore.js"
import type { Materializer } from "../services/Materializer.js"
import type { Progress } from "../services/Progress.js"
import type { ProposalStore } from "../services/ProposalStore.js"
import { redact, type Redacted } from "../domain/Redaction.js"
import { Redactor } from "../services/Redactor.js"
import type { StateStore } from "../services/StateStore.js"
import type { Tokenizer } from "../services/Tokenizer.js"
import type { Transaction } from "../services/Transaction.js"
import type { TransactionJournals } from "../services/TransactionJournals.js"
import type { UsageLog } from "../services/UsageLog.js"
import type { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import type { Bindings } from "../services/Bindings.js"
import type { ChildProcess } from "../services/ChildProcess.js"
import type { Credentials } from "../services/Credentials.js"
import type { EnvFiles } from "../services/EnvFiles.js"
import type { Crontab } from "../services/Crontab.js"
import type { TaskStore } from "../services/TaskStore.js"
import type { StepProcess } from "../services/StepProcess.js"
import type { WorkflowRuns } from "../services/WorkflowRuns.js"
import type { FileSystem } from "@effect/platform/FileSystem"
import type { MemoryStore } from "../services/MemoryStore.js"
import type { MemoryArchive } from "../services/MemoryArchive.js"
import type { StateTransfer } from "../services/StateTransfer.js"
import { redactReport, reportError } from "./exitCodes.js"
import { resolveFormat, type GlobalOptions } from "./options.js"
import { neutralise, renderError, renderResult, styleFor, type View } from "./render.js"

/** Services the CLI provides to every program. */
export type AkmServices = ImproveStore | SandboxIndex | WorkspaceConfig | StateStore | LogStore | IndexStore | ItemProjector | Materializer | Adapters | BundleFiles | ChangeValidator | Transaction | TransactionJournals | ProposalStore | EvidenceStore | UsageLog | Redactor | Tokenizer | Progress | GitHistory | FileSystem
  | Bindings | EnvFiles | Credentials | ChildProcess | StateDb | Crontab | TaskStore | GitSync | WorkflowRuns | StepProcess | MemoryStore | MemoryArchive | FileStamps
  | StateTransfer

/**
 * Layers an entry point adds to every command's live layer (runCli's
 * options): only the test-only entry point sets one (the CrashPoints test
 * layer); the shipped CLI leaves it empty and reads nothing from the
 * environment for it.
 */
export interface CliSeams {
  readonly crashPoints?: Layer.Layer<CrashPoints> | undefined
  /** Improve's evidence and generator (a test entry point's scripted ones); default: the shipped layers. */
  readonly improve?: Layer.Layer<EvidenceStore | Generator> | undefined
}

export const cliSeams = FiberRef.unsafeMake<CliSeams>({})

/** The command already printed its error; main only sets the exit code. */
export class Reported {
  readonly _tag = "Reported"
  constructor(readonly exit: number) {}
}

/** Where the caller stands: used to resolve relative paths given on the command line. */
export const callerContext = () => ({ cwd: process.cwd(), home: os.homedir() })

/** The projector worker beside the CLI bundle (dist/cli/); a run from sources has none and scans in-process. */
const projectorWorkerScript = (): string | undefined => (typeof __dirname === "string" ? path.join(__dirname, "projector-worker.cjs") : undefined)

/**
 * parse → program → render (spec 11 §4): runs a program on the live layer
 * built from the global options, prints the result on stdout, or the error on
 * stderr with stdout left empty.
 */
export const runCommand = <A, E>(
  options: GlobalOptions,
  program: Effect.Effect<A, E, AkmServices>,
  view: View<A>,
  exitFor: (value: A) => number = () => 0,
  /** false: print nothing on success (`env run`: the child owns stdout; its exit code is the result). */
  printResult = true
): Effect.Effect<void, Reported> => {
  const stdoutTTY = process.stdout.isTTY === true
  const format = resolveFormat(options.format, stdoutTTY)
  const layer = (seams: CliSeams) =>
    makeAkmLive({
      configDir: Option.getOrUndefined(options.configDir),
      dataDir: Option.getOrUndefined(options.dataDir),
      cacheDir: Option.getOrUndefined(options.cacheDir),
      quiet: options.quiet,
      projectorWorker: projectorWorkerScript(),
      crashPoints: seams.crashPoints
    })
  // An error may quote a ref, a file or a value: it is printed redacted, with the workspace's
  // known values when the layer came up (taken only on failure), else with the patterns.
  let redactText: (text: string) => Redacted = (text) => redact(text)
  const redactorOnFailure = Effect.tapErrorCause(program, () => Effect.map(Effect.flatMap(Redactor, (r) => r.snapshot), (snapshot) => void (redactText = snapshot)))
  return FiberRef.get(cliSeams).pipe(
    Effect.flatMap((seams) => Effect.provide(redactorOnFailure, layer(seams))),
    Effect.matchEffect({
      onSuccess: (value) =>
        Effect.sync(() => {
          if (printResult) process.stdout.write(renderResult(format, value, view, styleFor(stdoutTTY, process.env)))
          const exit = exitFor(value)
          return exit
        }).pipe(Effect.flatMap((exit) => (exit === 0 ? Effect.void : Effect.fail(new Reported(exit))))),
      onFailure: (error) =>
        Effect.suspend(() => {
          const report = redactReport(reportError(error), redactText)
          process.stderr.write(renderError(format, report, styleFor(process.stderr.isTTY === true, process.env)))
          if (options.verbose && error instanceof Error && error.stack !== undefined) process.stderr.write(`${neutralise(redactText(error.stack))}\n`)
          return Effect.fail(new Reported(report.exit))
        })
    })
  )
}
