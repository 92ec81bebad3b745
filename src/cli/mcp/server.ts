import * as McpServer from "@effect/ai/McpServer"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { Effect, Layer, Logger, LogLevel } from "effect"
import type { AkmServices } from "../run.js"
import { VERSION } from "../../version.js"
import { McpFreshness } from "./freshness.js"
import { AkmToolHandlers } from "./handlers.js"
import { registerTools } from "./register.js"
import { RefResources } from "./resources.js"
import { AkmToolkit } from "./tools.js"

const SERVER_INFO = { name: "akm", version: VERSION } as const

/**
 * The MCP server's registry with every akm tool and the ref resources in it,
 * on the services of `layer` (the CLI's AkmLive, or an embedder's graph).
 * Tools are registered before any protocol starts, so the first
 * `initialize` already lists them.
 */
export const mcpRegistry = <E, R>(services: Layer.Layer<AkmServices, E, R>) =>
  Layer.mergeAll(registerTools(AkmToolkit), RefResources).pipe(
    Layer.provide(AkmToolHandlers),
    Layer.provide(McpFreshness.layer),
    Layer.provideMerge(McpServer.McpServer.layer),
    Layer.provide(services)
  )

/** Runs the server on a protocol once the registry is built. */
export const serving = Layer.scopedDiscard(Effect.forkScoped(McpServer.run(SERVER_INFO)))

/**
 * Logs go to stderr (stdout carries protocol frames alone), warnings and up
 * unless `verbose`.
 */
export const stderrLogs = (verbose: boolean) =>
  Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
    Logger.minimumLogLevel(verbose ? LogLevel.Debug : LogLevel.Warning)
  )

/** `akm mcp`: newline-delimited JSON-RPC over stdin/stdout; ends when stdin closes. */
export const mcpStdio = <E, R>(services: Layer.Layer<AkmServices, E, R>) =>
  serving.pipe(
    Layer.provide(RpcServer.layerProtocolStdio({ stdin: NodeStream.stdin, stdout: NodeSink.stdout }).pipe(Layer.provide(RpcSerialization.layerNdJsonRpc()))),
    // Provided last, so built first: the registry is complete before stdin is read.
    Layer.provide(mcpRegistry(services))
  )
