import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import ipaddr from "ipaddr.js"
import { mcpHttpListener } from "../../layers/http/McpHttpListener.js"
import type { AkmServices } from "../run.js"
import { mcpRegistry, serving } from "./server.js"

/** Where the server answers. */
export const MCP_PATH = "/mcp"
/** The largest request body accepted (bytes): a tool call is a few KiB. */
export const MAX_REQUEST_BYTES = 1024 * 1024

/** 127.0.0.0/8, ::1 and `localhost`. */
export const isLoopback = (host: string): boolean => {
  if (host === "localhost") return true
  try {
    return ipaddr.process(host).range() === "loopback"
  } catch {
    return false
  }
}

const digest = (text: string) => createHash("sha256").update(text).digest()

/** `Authorization: Bearer <token>`, compared in constant time (equal-length digests). */
const authorized = (header: string | undefined, token: Redacted.Redacted<string>): boolean => {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? "")?.[1]
  return given !== undefined && timingSafeEqual(digest(given.trim()), digest(Redacted.value(token)))
}

const unauthorized = HttpServerResponse.unsafeJson(
  { jsonrpc: "2.0", id: null, error: { code: -32001, message: "unauthorized: send Authorization: Bearer <token> (the mcp.token credential)" } },
  { status: 401, headers: { "www-authenticate": "Bearer" } }
)

/** The token check (when a token is set) and the request size cap, around every request. */
const guard = (token: Redacted.Redacted<string> | undefined) =>
  HttpMiddleware.make((app) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (token !== undefined && !authorized(request.headers["authorization"], token)) return unauthorized
      return yield* app
    }).pipe(HttpIncomingMessage.withMaxBodySize(Option.some(MAX_REQUEST_BYTES)))
  )

/** Says where the server listens, on stderr (stdout is not used in HTTP mode either). */
const announce = Layer.effectDiscard(
  Effect.flatMap(HttpServer.HttpServer, (server) =>
    Effect.sync(() => {
      const address = server.address
      if (address._tag === "TcpAddress") {
        const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname
        process.stderr.write(`akm mcp: listening on http://${host}:${address.port}${MCP_PATH}\n`)
      }
    })
  )
)

export interface McpHttpOptions {
  readonly host: string
  readonly port: number
  readonly token: Redacted.Redacted<string> | undefined
}

/**
 * `akm mcp --http`: MCP's streamable HTTP (JSON-RPC over POST) at /mcp, on
 * the same registry as stdio; ends on SIGTERM, closing the listener and the
 * databases.
 */
export const mcpHttp = <E, R>(services: Layer.Layer<AkmServices, E, R>, options: McpHttpOptions) => {
  const server = serving.pipe(
    Layer.provide(RpcServer.layerProtocolHttp({ path: MCP_PATH }).pipe(Layer.provide(RpcSerialization.layerJsonRpc()))),
    Layer.provide(mcpRegistry(services))
  )
  return Layer.mergeAll(HttpRouter.Default.serve(guard(options.token)), announce).pipe(
    Layer.provide(server),
    Layer.provide(mcpHttpListener({ host: options.host, port: options.port }))
  )
}
