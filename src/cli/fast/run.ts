import { Effect, Exit, Layer } from "effect"
import { BundleFilesNode } from "../../layers/fs/BundleFilesNode.js"
import { makeProgress } from "../../layers/fs/ProgressTerminal.js"
import { openSearchLive } from "../../layers/SearchLive.js"
import { TokenizerGpt } from "../../layers/tokenizer/TokenizerGpt.js"
import type { LazyConnection } from "../../layers/sqlite/connection.js"
import type { BundleFiles } from "../../services/BundleFiles.js"
import type { IndexStore } from "../../services/IndexStore.js"
import { Progress } from "../../services/Progress.js"
import type { Redactor } from "../../services/Redactor.js"
import type { Tokenizer } from "../../services/Tokenizer.js"
import type { UsageLog } from "../../services/UsageLog.js"
import type { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { ExitCode } from "../exitCodes.js"
import { runInterruptible } from "../interruptible.js"
import { interruptedExit } from "./interrupted.js"
import { renderResult, styleFor, type View } from "../render.js"
import type { FastArgs } from "./argv.js"

/**
 * What the read commands' start-up fast paths share (docs/decisions/0013-fast-read-commands.md):
 * the real programs over the light layers of the search fast path
 * (layers/SearchLive.ts: IndexStore, UsageLog, Redactor, WorkspaceConfig on
 * plain better-sqlite3 connections) plus the real BundleFiles, Progress and
 * (lazily loaded) Tokenizer layers, and one way to print or decline.
 */

/** The services the fast read commands' programs run on. */
export type IndexedServices = IndexStore | UsageLog | Redactor | WorkspaceConfig | BundleFiles | Progress | Tokenizer

export interface FastLive<R> {
  readonly layer: Layer.Layer<R>
  /** Prints the warnings the program made; called only when its result is printed. */
  readonly flush: () => void
  readonly close: () => void
}

/**
 * Warnings go to stderr as ProgressStderr writes them, but only once the
 * command succeeds: a command that fails is declined and run again by the
 * full CLI, which must not find its warnings printed twice.
 */
const heldProgress = (quiet: boolean, isTTY: boolean) => {
  const held: Array<string> = []
  const layer = Layer.succeed(Progress, makeProgress({ quiet, isTTY, write: (text) => void held.push(text) }))
  return { layer, flush: () => held.forEach((text) => process.stderr.write(text)) }
}

/**
 * The indexed services, or undefined when the workspace is not in the everyday
 * state SearchLive serves. `progressTTY`: draw progress lines as ProgressStderr
 * would on a terminal (held like warnings); the read commands draw none.
 */
export const openIndexedLive = (args: FastArgs, track: boolean, progressTTY = false): (FastLive<IndexedServices> & { readonly state: LazyConnection }) | undefined => {
  const live = openSearchLive({ configDir: args.configDir, dataDir: args.dataDir, cacheDir: args.cacheDir }, track)
  if (live === undefined) return undefined
  const progress = heldProgress(args.quiet, progressTTY)
  const layer = Layer.mergeAll(BundleFilesNode, progress.layer, TokenizerGpt).pipe(Layer.provideMerge(live.layer))
  return { layer, flush: progress.flush, close: live.close, state: live.state }
}

/**
 * Runs a program on its live layer and prints its result through the
 * command's view exactly as runCommand (cli/run.ts) would; resolves to
 * undefined — nothing printed — when it fails, so that bin/akm.js runs the
 * full CLI, which reports the error its own way. Interruption is answered
 * here (130, 143), as main.ts would.
 */
export const runFast = async <A, E, R>(
  args: FastArgs,
  live: FastLive<R>,
  program: Effect.Effect<A, E, R>,
  view: View<A>,
  exitFor: (value: A) => number = () => ExitCode.ok
): Promise<number | undefined> => {
  const stdoutTTY = process.stdout.isTTY === true
  const format = args.format ?? (stdoutTTY ? "text" : "json")
  try {
    const { exit, signal } = await runInterruptible(Effect.provide(program, live.layer))
    if (Exit.isSuccess(exit)) {
      live.flush()
      process.stdout.write(renderResult(format, exit.value, view, styleFor(stdoutTTY, process.env)))
      return exitFor(exit.value)
    }
    return interruptedExit(exit.cause, signal, format)
  } finally {
    live.close()
  }
}
