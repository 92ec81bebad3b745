import { spawn } from "node:child_process"
import { constants } from "node:os"
import { Effect, Layer } from "effect"
import { ChildNotStarted, ChildProcess } from "../../services/ChildProcess.js"

/** 128 + the signal's number, as shells report a child killed by a signal. */
const signalExit = (signal: NodeJS.Signals): number => 128 + (constants.signals[signal] ?? 0)

/**
 * ChildProcess with node's spawn: `shell: false`, stdio inherited. Interrupting
 * the run (akm got SIGINT/SIGTERM) passes SIGTERM on to the child and waits
 * for it, so no child outlives akm unnoticed.
 */
export const ChildProcessNode = Layer.succeed(
  ChildProcess,
  ChildProcess.of({
    run: (argv, inject, cwd, options) =>
      Effect.async<number, ChildNotStarted>((resume) => {
        const [program, ...args] = argv
        if (program === undefined) {
          resume(Effect.fail(new ChildNotStarted("", "no command to run", "put the command after `--`, e.g. `akm env run <ref> -- node app.js`")))
          return
        }
        const stdin = options?.stdin
        const child = spawn(program, args, { cwd, env: { ...process.env, ...inject }, stdio: [stdin === undefined ? "inherit" : "pipe", "inherit", "inherit"], shell: false })
        if (stdin !== undefined && child.stdin !== null) {
          // A child that exits without reading its input is not an error of akm's.
          child.stdin.on("error", () => undefined)
          child.stdin.end(stdin)
        }
        child.once("error", (error: NodeJS.ErrnoException) => {
          resume(Effect.fail(new ChildNotStarted(program, `cannot start '${program}': ${error.code === "ENOENT" ? "no such command" : error.code ?? "failed"}`, "check the command name and PATH; akm runs it directly, without a shell")))
        })
        child.once("exit", (code, signal) => resume(Effect.succeed(code ?? (signal === null ? 1 : signalExit(signal)))))
        return Effect.sync(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
        })
      })
  })
)
