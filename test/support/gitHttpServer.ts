import { spawn, type ChildProcess } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { gitEnv } from "./gitRepo.js"

export interface GitHttpServer {
  /** The clone URL of a repository folder below the project root. */
  readonly url: (repo: string) => string
  /** How many HTTP requests the server has answered. */
  readonly requests: () => number
  readonly stop: () => Promise<void>
}

const HEADER_END = Buffer.from("\r\n\r\n")
const HEADER_END_LF = Buffer.from("\n\n")

export interface GitHttpServerOptions {
  /** Every request needs HTTP Basic auth with this password (else 401 with a challenge); pushes are then allowed. */
  readonly token?: string
  /** Accept pushes (receive-pack) without auth. */
  readonly receivePack?: boolean
}

/**
 * A real git smart-HTTP server for tests: node:http on 127.0.0.1 (port 0)
 * running `git http-backend` as a CGI program per request, serving every
 * repository below `projectRoot` — read-only (upload-pack only) unless
 * `options` allow pushes.
 */
export const startGitHttpServer = async (projectRoot: string, home: string, options: GitHttpServerOptions = {}): Promise<GitHttpServer> => {
  const children = new Set<ChildProcess>()
  let requests = 0
  const server = http.createServer((req, res) => {
    requests++
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const header = (name: string) => {
      const value = req.headers[name]
      return Array.isArray(value) ? value.join(", ") : value ?? ""
    }
    if (options.token !== undefined) {
      const given = /^Basic (.+)$/.exec(header("authorization"))?.[1]
      const password = given === undefined ? undefined : Buffer.from(given, "base64").toString("utf8").split(":").slice(1).join(":")
      if (password !== options.token) return void res.writeHead(401, { "WWW-Authenticate": 'Basic realm="akm-test"' }).end("authentication required")
    }
    const pushes = options.token !== undefined || options.receivePack === true
    const child = spawn("git", ["http-backend"], {
      env: {
        // http-backend serves receive-pack only to an authenticated user.
        ...(pushes ? { REMOTE_USER: "akm-test" } : {}),
        ...gitEnv(home),
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: header("content-type"),
        ...(req.headers["content-length"] === undefined ? {} : { CONTENT_LENGTH: header("content-length") }),
        HTTP_CONTENT_ENCODING: header("content-encoding"),
        HTTP_GIT_PROTOCOL: header("git-protocol"),
        REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
        SERVER_PROTOCOL: "HTTP/1.1"
      },
      stdio: ["pipe", "pipe", "ignore"]
    })
    children.add(child)
    child.on("exit", () => children.delete(child))
    child.on("error", () => {
      if (!res.headersSent) res.writeHead(500).end("cannot run git http-backend")
    })
    req.pipe(child.stdin!)
    child.stdin!.on("error", () => {})
    respond(child, res)
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const { port } = server.address() as AddressInfo
  return {
    url: (repo) => `http://127.0.0.1:${port}/${repo}`,
    requests: () => requests,
    stop: async () => {
      for (const child of children) child.kill()
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  }
}

/** Parses the CGI headers ("Status: 404 Not Found", "Content-Type: …") off the child's stdout and streams the rest as the body. */
const respond = (child: ChildProcess, res: http.ServerResponse): void => {
  let head = Buffer.alloc(0)
  let streaming = false
  child.stdout!.on("data", (chunk: Buffer) => {
    if (streaming) return void res.write(chunk)
    head = Buffer.concat([head, chunk])
    const crlf = head.indexOf(HEADER_END)
    const lf = head.indexOf(HEADER_END_LF)
    const end = crlf !== -1 && (lf === -1 || crlf < lf) ? { at: crlf, length: 4 } : lf !== -1 ? { at: lf, length: 2 } : undefined
    if (end === undefined) return
    let status = 200
    const headers: Record<string, string> = {}
    for (const line of head.subarray(0, end.at).toString("latin1").split(/\r?\n/)) {
      const colon = line.indexOf(":")
      if (colon <= 0) continue
      const name = line.slice(0, colon).trim()
      const value = line.slice(colon + 1).trim()
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10)
      else headers[name] = value
    }
    res.writeHead(status, headers)
    streaming = true
    const rest = head.subarray(end.at + end.length)
    if (rest.length > 0) res.write(rest)
  })
  child.stdout!.on("end", () => {
    if (!streaming && !res.headersSent) res.writeHead(502)
    res.end()
  })
}
