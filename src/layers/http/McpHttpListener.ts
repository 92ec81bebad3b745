import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { createServer } from "node:http"

/** How long one request may take, headers to response, before Node ends it (ms). */
export const MCP_REQUEST_TIMEOUT_MS = 60_000

/**
 * How long an idle kept-alive connection stays open (ms). Longer than the
 * idle limits of common HTTP clients (a few seconds), so a client never sends
 * on a connection the server has just closed (Node's default is 5 s).
 */
export const MCP_KEEP_ALIVE_TIMEOUT_MS = 65_000

/**
 * The HTTP listener of `akm mcp --http` (src/cli/mcp/http.ts): Node's server
 * with a per-request timeout and small header limits, on the address the
 * command checked (loopback unless --allow-remote).
 */
export const mcpHttpListener = (options: { readonly host: string; readonly port: number }) =>
  NodeHttpServer.layer(() => {
    const server = createServer({ requestTimeout: MCP_REQUEST_TIMEOUT_MS, headersTimeout: 10_000, maxHeaderSize: 16 * 1024 })
    server.keepAliveTimeout = MCP_KEEP_ALIVE_TIMEOUT_MS
    return server
  }, { host: options.host, port: options.port })
