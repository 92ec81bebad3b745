import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { makeAkmLive } from "../../layers/AkmLive.js"
import { mcpStdio, stderrLogs } from "./server.js"

export interface McpStartOptions {
  readonly configDir?: string | undefined
  readonly dataDir?: string | undefined
  readonly cacheDir?: string | undefined
  readonly verbose?: boolean | undefined
  readonly projectorWorker?: string | undefined
}

export interface RunningMcp {
  /** Settles with the exit code when the server ends (stdin closed: 0). */
  readonly done: Promise<number>
  /** Ends the server: open calls are interrupted, the databases closed. */
  readonly stop: () => void
}

/**
 * `akm mcp` (stdio), started by src/cli/mcp.ts from its own bundle
 * (dist/cli/mcp.cjs) so that no other command loads @effect/ai. One process
 * serves every call on the same layers as the CLI: the databases are opened
 * once, on the first call, and closed when the server ends.
 */
export const startMcp = (options: McpStartOptions): RunningMcp => {
  const services = makeAkmLive({
    configDir: options.configDir,
    dataDir: options.dataDir,
    cacheDir: options.cacheDir,
    // Progress would interleave with nothing on stdout, but an agent's client shows stderr as noise.
    quiet: options.verbose !== true,
    projectorWorker: options.projectorWorker
  })
  const fiber = Effect.runFork(Layer.launch(mcpStdio(services).pipe(Layer.provide(stderrLogs(options.verbose === true)))))
  const done = Effect.runPromise(Fiber.await(fiber)).then((exit) => {
    // The protocol interrupts the server when stdin closes: the normal end.
    if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return 0
    process.stderr.write(`akm mcp: the server stopped: ${Cause.pretty(exit.cause).split("\n")[0]}\n`)
    return 70
  })
  return { done, stop: () => void Effect.runFork(Fiber.interrupt(fiber)) }
}
