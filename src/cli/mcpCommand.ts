import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
// A namespace import: test entry points bundled as ESM define `createRequire` in a banner of their own.
import * as NodeModule from "node:module"
import * as path from "node:path"
import type { McpStartOptions, RunningMcp } from "./mcp/start.js"
import { globalOptions } from "./options.js"
import { Reported } from "./run.js"

/**
 * The MCP server lives in a bundle of its own beside the CLI's
 * (dist/cli/mcp.cjs): @effect/ai is then loaded by `akm mcp` alone, and every
 * other command starts as fast as before (docs/decisions/0021-mcp-server.md).
 */
const loadServer = (): ((options: McpStartOptions) => RunningMcp) | undefined => {
  const dir = typeof __dirname === "string" ? __dirname : undefined
  const bundle = dir === undefined ? undefined : path.join(dir, "mcp.cjs")
  if (bundle === undefined) return undefined
  try {
    return (NodeModule.createRequire(bundle)(bundle) as { readonly startMcp: (options: McpStartOptions) => RunningMcp }).startMcp
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND") return undefined
    throw error
  }
}

export const mcpCommand = Command.make("mcp", {
  http: Options.boolean("http").pipe(Options.withDescription("serve streamable HTTP at http://<host>:<port>/mcp instead of stdio")),
  port: Options.integer("port").pipe(Options.withDescription("the HTTP port (default 7777; 0 picks a free one)"), Options.withDefault(7777)),
  host: Options.text("host").pipe(Options.withDescription("the HTTP address to bind (default 127.0.0.1)"), Options.withDefault("127.0.0.1")),
  allowRemote: Options.boolean("allow-remote").pipe(Options.withDescription("allow a non-loopback --host; needs a token (AKM_MCP_TOKEN or mcp.token)")),
  ...globalOptions
}, (o) =>
  Effect.async<number, Reported>((resume) => {
    const start = loadServer()
    if (start === undefined) {
      process.stderr.write("akm mcp: the server's bundle (dist/cli/mcp.cjs) is missing; rebuild akm with `npm run build`\n")
      resume(Effect.fail(new Reported(70)))
      return
    }
    const server = start({
      configDir: Option.getOrUndefined(o.configDir),
      dataDir: Option.getOrUndefined(o.dataDir),
      cacheDir: Option.getOrUndefined(o.cacheDir),
      verbose: o.verbose,
      http: o.http ? { host: o.host, port: o.port, allowRemote: o.allowRemote } : undefined,
      projectorWorker: path.join(__dirname, "projector-worker.cjs")
    })
    void server.done.then((code) => resume(code === 0 ? Effect.succeed(code) : Effect.fail(new Reported(code))))
    return Effect.sync(server.stop)
  }).pipe(Effect.asVoid)
).pipe(
  Command.withDescription(
    "Serve akm to agents over MCP (Model Context Protocol). On stdin/stdout, or with --http on loopback: search, show, curate, remember, feedback, lint, proposals and the ledger as tools, items as akm:// resources. Example: claude mcp add akm -- akm mcp"
  )
)
