import { Clock, Effect, Exit } from "effect"
import { openSearchLive } from "../../layers/SearchLive.js"
import { searchIndexed } from "../../programs/searchIndexed.js"
import { ExitCode } from "../exitCodes.js"
import { runInterruptible } from "../interruptible.js"
import { interruptedExit } from "./interrupted.js"
import { forTerminal, renderResult, styleFor } from "../render.js"
import { outputWidth, searchInput, searchView, truncationNote } from "../searchCommon.js"
import { parseSearchArgv } from "./searchArgv.js"

/**
 * `akm search` without @effect/cli, @effect/sql or the whole service graph
 * (docs/decisions/0002-start-up.md): bin/akm.js tries this first for
 * `akm search …`, from its own small bundle (dist/cli/search.cjs). It runs the
 * same program (searchIndexed) on the same data and prints through the same
 * view as src/cli/search.ts, and answers only what it can answer exactly as
 * the full CLI would: a plain command line (searchArgv.ts) on a workspace in
 * its everyday state (layers/SearchLive.ts), with a result. Anything else —
 * an unusual command line, a first run, a database to migrate, any error —
 * resolves to undefined before a byte is printed or a row written, and
 * bin/akm.js runs the full CLI, which prints its own output and errors.
 * Interruption is the exception: it is answered here (130, 143), as main.ts
 * would, rather than starting the search again.
 */
export const runSearch = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const args = parseSearchArgv(argv)
  if (args === undefined) return undefined
  const live = openSearchLive({ configDir: args.configDir, dataDir: args.dataDir, cacheDir: args.cacheDir }, !args.options.noTrack)
  if (live === undefined) return undefined
  const stdoutTTY = process.stdout.isTTY === true
  const format = args.format ?? (stdoutTTY ? "text" : "json")
  const input = searchInput(args.options)
  const program = Effect.flatMap(Clock.currentTimeNanos, (started) => searchIndexed(input, started)).pipe(Effect.provide(live.layer))
  const { exit, signal } = await runInterruptible(program)
  try {
    if (Exit.isSuccess(exit)) {
      const note = truncationNote(exit.value, format, args.quiet, styleFor(process.stderr.isTTY === true, process.env))
      if (note !== undefined) process.stderr.write(forTerminal(note))
      process.stdout.write(renderResult(format, exit.value, searchView(args.options, outputWidth(process.stdout, process.env)), styleFor(stdoutTTY, process.env)))
      return ExitCode.ok
    }
    return interruptedExit(exit.cause, signal, format)
  } finally {
    live.close()
  }
}
