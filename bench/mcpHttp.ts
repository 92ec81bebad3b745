import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { quantile } from "./quantile.js"

/**
 * The MCP-over-HTTP half of the `postgres` bench step (issue 27 item 5): a
 * real `akm mcp --http` child on 127.0.0.1 (port 0) over a workspace the step
 * has already indexed, driven by @modelcontextprotocol/sdk's HTTP client:
 * warm-up calls, then `search` round trips timed one at a time (JSON-RPC over
 * HTTP, the server's search and its usage record included).
 */

const bin = fileURLToPath(new URL("../bin/akm.js", import.meta.url))

const WARM_UP = 20

export interface McpHttpTiming {
  readonly calls: number
  readonly p50Ms: number
  readonly p95Ms: number
  /** The server child's user + system CPU per call over the timed calls (Linux /proc), or null: load does not inflate it. */
  readonly serverCpuMsPerCall: number | null
}

/** A child's user + system CPU in ms from /proc/<pid>/stat (clock ticks of 10 ms on Linux), or null elsewhere. */
const cpuMs = (pid: number | undefined): number | null => {
  if (pid === undefined) return null
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return null
  }
}

/**
 * Starts `akm mcp --http --port 0` with the workspace's directories, times
 * `queries.length` search calls after WARM_UP untimed ones, stops the server.
 */
export const mcpHttpSearch = async (home: string, queries: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<McpHttpTiming> => {
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    AKM_CONFIG_DIR: join(home, "config"),
    AKM_DATA_DIR: join(home, "data"),
    AKM_CACHE_DIR: join(home, "cache"),
    HOME: home,
    ...env
  }
  // Loopback without a token: the round trip measured is the search, not the bearer check.
  delete childEnv.AKM_MCP_TOKEN
  const child = spawn(process.execPath, [bin, "mcp", "--http", "--port", "0"], {
    env: childEnv,
    cwd: home,
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
        const found = /listening on (http:\/\/\S+)/.exec(stderr)
        if (found !== null) resolve(new URL(found[1]!))
      })
      child.once("exit", (code) => reject(new Error(`akm mcp --http exited ${code}: ${stderr.slice(0, 2000)}`)))
    })
    if (url.hostname !== "127.0.0.1") throw new Error(`akm mcp --http listens on ${url.hostname}, not 127.0.0.1`)
    const client = new Client({ name: "akm-bench-http", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(url))
    try {
      const call = async (query: string) => {
        const result = await client.callTool({ name: "search", arguments: { query, limit: 20 } }, undefined, { timeout: 600_000 })
        if (result.isError === true) throw new Error(`search ${JSON.stringify(query)} failed over MCP HTTP: ${JSON.stringify(result.content).slice(0, 500)}`)
      }
      // The first call may refresh the index (a bundle's stamps are new to this server): untimed.
      for (const query of queries.slice(0, WARM_UP)) await call(query)
      const cpuBefore = cpuMs(child.pid)
      const samples: Array<number> = []
      for (const query of queries) {
        const started = performance.now()
        await call(query)
        samples.push(performance.now() - started)
      }
      const cpuAfter = cpuMs(child.pid)
      return {
        calls: samples.length,
        p50Ms: quantile(samples, 0.5),
        p95Ms: quantile(samples, 0.95),
        serverCpuMsPerCall: cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) / samples.length) * 100) / 100
      }
    } finally {
      await client.close()
    }
  } finally {
    child.kill("SIGTERM")
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
}
