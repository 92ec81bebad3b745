import { boundHeapGrowth } from "./heapTrim.js"
import { Cause, Effect, Exit, Fiber, Layer, type Redacted } from "effect"
import { EnvFilesNode } from "../../layers/fs/EnvFilesNode.js"
import { CredentialsLive } from "../../layers/runtime/CredentialsLive.js"
import { makeAkmLive } from "../../layers/AkmLive.js"
import { WorkspaceConfigLive } from "../../layers/fs/WorkspaceConfigFile.js"
import { Credentials } from "../../services/Credentials.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { isLoopback, mcpHttp } from "./http.js"
import { mcpStdio, stderrLogs } from "./server.js"

export interface McpStartOptions {
  readonly configDir?: string | undefined
  readonly dataDir?: string | undefined
  readonly cacheDir?: string | undefined
  readonly verbose?: boolean | undefined
  readonly projectorWorker?: string | undefined
  /** Serve streamable HTTP instead of stdio. */
  readonly http?: { readonly host: string; readonly port: number; readonly allowRemote: boolean } | undefined
}

export interface RunningMcp {
  /** Settles with the exit code when the server ends (stdin closed, SIGTERM: 0). */
  readonly done: Promise<number>
  /** Ends the server: open calls are interrupted, the listener and the databases closed. */
  readonly stop: () => void
}

/** The token reference when config.yaml names none (spec 01 §6). */
export const DEFAULT_TOKEN_REFERENCE = "env:AKM_MCP_TOKEN"

class StartRefused {
  readonly _tag = "StartRefused"
  constructor(readonly message: string, readonly exit: number) {}
}

/**
 * The HTTP server's token: `mcp.token` from config.yaml, else AKM_MCP_TOKEN.
 * A named reference that does not resolve stops the start; the default one
 * may be unset (then no token on loopback). Resolved through the Credentials
 * interface (env:VAR or secret:<ref>, spec 01 §6).
 */
const resolveToken = (options: McpStartOptions) =>
  Effect.gen(function* () {
    const config = yield* Effect.flatMap(WorkspaceConfig, (w) => w.read).pipe(
      Effect.mapError((error) => new StartRefused(`akm mcp: ${error.message}`, 78))
    )
    const credentials = yield* Credentials
    const reference = config.mcp?.token
    if (reference === undefined) return yield* credentials.firstAvailable([DEFAULT_TOKEN_REFERENCE])
    return yield* credentials.resolve(reference).pipe(
      Effect.mapError((error) => new StartRefused(`akm mcp: the token ${error.reference} is unavailable: ${error.message} (${error.hint})`, 78))
    )
  }).pipe(Effect.provide(CredentialsLive.pipe(Layer.provideMerge(EnvFilesNode), Layer.provideMerge(WorkspaceConfigLive({ configDir: options.configDir, dataDir: options.dataDir, cacheDir: options.cacheDir })))))

const serverLayer = (options: McpStartOptions) =>
  Effect.gen(function* () {
    const services = makeAkmLive({
      configDir: options.configDir,
      dataDir: options.dataDir,
      cacheDir: options.cacheDir,
      // Progress on stderr is noise in an agent's client.
      quiet: options.verbose !== true,
      projectorWorker: options.projectorWorker
    })
    const http = options.http
    if (http === undefined) return mcpStdio(services)
    const token: Redacted.Redacted<string> | undefined = yield* resolveToken(options)
    if (!isLoopback(http.host)) {
      if (!http.allowRemote) return yield* Effect.fail(new StartRefused(`akm mcp: ${http.host} is not a loopback address; serving other hosts needs --allow-remote and a token (mcp.token or AKM_MCP_TOKEN)`, 2))
      if (token === undefined) return yield* Effect.fail(new StartRefused("akm mcp: --allow-remote needs a token: set AKM_MCP_TOKEN, or mcp.token to an env: reference", 2))
    }
    return mcpHttp(services, { host: http.host, port: http.port, token })
  })

/**
 * `akm mcp`, started by src/cli/mcpCommand.ts from its own bundle
 * (dist/cli/mcp.cjs) so that no other command loads @effect/ai. One process
 * serves every call on the same layers as the CLI: the databases are opened
 * once, on the first call, and closed when the server ends.
 */
export const startMcp = (options: McpStartOptions): RunningMcp => {
  boundHeapGrowth()
  const program = Effect.flatMap(serverLayer(options), (layer) => Layer.launch(layer.pipe(Layer.provide(stderrLogs(options.verbose === true)))))
  const fiber = Effect.runFork(program)
  const done = Effect.runPromise(Fiber.await(fiber)).then((exit) => {
    // stdin closing (stdio) and stop() (SIGTERM) interrupt the server: the normal end.
    if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return 0
    const refused = Cause.failureOption(exit.cause)
    if (refused._tag === "Some" && refused.value instanceof StartRefused) {
      process.stderr.write(`${refused.value.message}\n`)
      return refused.value.exit
    }
    process.stderr.write(`akm mcp: the server stopped: ${Cause.pretty(exit.cause).split("\n")[0]}\n`)
    return 70
  })
  return { done, stop: () => void Effect.runFork(Fiber.interrupt(fiber)) }
}
