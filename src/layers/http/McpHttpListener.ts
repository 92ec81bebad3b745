import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { createServer } from "node:http"

/** How long one request may take, headers to response, before Node ends it (ms). */
export const MCP_REQUEST_TIMEOUT_MS = 60_000

/**
 * The HTTP listener of `akm mcp --http` (src/cli/mcp/http.ts): Node's server
 * with a per-request timeout and small header limits, on the address the
 * command checked (loopback unless --allow-remote).
 */
export const mcpHttpListener = (options: { readonly host: string; readonly port: number }) =>
  NodeHttpServer.layer(() => createServer({ requestTimeout: MCP_REQUEST_TIMEOUT_MS, headersTimeout: 10_000, maxHeaderSize: 16 * 1024 }), { host: options.host, port: options.port })
