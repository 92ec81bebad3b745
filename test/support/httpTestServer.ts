import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A tiny real HTTP server on 127.0.0.1, port 0, for website tests (the crawler
 * and its safe client). Tests never reach beyond 127.0.0.1.
 *
 *   const srv = await startServer({ "/": html("<a href='/b'>b</a>"), "/b": text("b") })
 *   srv.url          // "http://127.0.0.1:PORT" (no trailing slash)
 *   srv.requests     // every request seen, in order: { path, headers }
 *   await srv.close()
 *
 * Routes match the request path with its query first ("/a?x=1"), then the
 * pathname alone ("/a"), then "*"; anything else answers 404.
 */

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

export interface SeenRequest {
  /** Path with query, as sent ("/a?x=1"). */
  readonly path: string
  readonly method: string
  /** Lower-case names, as node gives them. */
  readonly headers: http.IncomingHttpHeaders
}

export interface TestServer {
  readonly url: string
  readonly port: number
  readonly requests: Array<SeenRequest>
  /** Stops listening and drops open connections (stalled responses included). */
  readonly close: () => Promise<void>
}

export interface ServerOptions {
  /** Listen address; default 127.0.0.1. */
  readonly host?: string
}

export const startServer = (
  routes: Readonly<Record<string, Handler>> | Handler,
  options: ServerOptions = {}
): Promise<TestServer> => {
  const requests: Array<SeenRequest> = []
  const route = (req: http.IncomingMessage): Handler | undefined => {
    if (typeof routes === "function") return routes
    const full = req.url ?? "/"
    const pathname = full.split("?")[0] ?? "/"
    return routes[full] ?? routes[pathname] ?? routes["*"]
  }
  const server = http.createServer((req, res) => {
    requests.push({ path: req.url ?? "/", method: req.method ?? "GET", headers: req.headers })
    const handler = route(req)
    if (handler === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found")
      return
    }
    try {
      handler(req, res)
    } catch (e) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
      res.end(String(e))
    }
  })
  const host = options.host ?? "127.0.0.1"
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo
      const hostPart = host.includes(":") ? `[${host}]` : host
      resolve({
        url: `http://${hostPart}:${port}`,
        port,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}

/** 200 with a body and a content type. */
export const respond =
  (body: string | Uint8Array, contentType: string, status = 200, headers: Readonly<Record<string, string>> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { "content-type": contentType, ...headers }).end(body)
  }

export const html = (body: string, status = 200): Handler => respond(body, "text/html; charset=utf-8", status)
export const text = (body: string, status = 200): Handler => respond(body, "text/plain; charset=utf-8", status)

/** A redirect (302 by default) to `location`, absolute or relative. */
export const redirect =
  (location: string, status = 302): Handler =>
  (_req, res) => {
    res.writeHead(status, { location }).end()
  }

/** Sends headers, then never finishes the body (for timeout tests); close() ends it. */
export const stall: Handler = (_req, res) => {
  res.writeHead(200, { "content-type": "text/html" })
  res.write("<html>")
}
