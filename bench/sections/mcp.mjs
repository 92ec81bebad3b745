// The mcp section (issue 24 §5): `akm mcp` over stdio with
// @modelcontextprotocol/sdk's own client, on the kept 5,000-item corpus:
// server start to first answer, warm `search` round trips (p50/p95, JSON
// framing included) and the server's RSS after 1,000 and 10,000 calls.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { quantile, round2 } from "../measure.mjs"

const bin = fileURLToPath(new URL("../../bin/akm.js", import.meta.url))

export const MCP_TARGETS = { p50Ms: 5, p95Ms: 15, rssGrowthMb: 20 }

const QUERIES = ["docker compose", "release notes", "code review", "deploy", "incident response", "kubernetes", "testing", "changelog", "svelte component", "metrics"]

/** The child's resident set in MB (Linux /proc), or null elsewhere. */
const rssMb = (pid) => {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return kb === undefined ? null : round2(Number(kb) / 1024)
  } catch {
    return null
  }
}

export const mcpSection = async ({ root, items, timed, longRun, onProgress }) => {
  const env = { ...process.env, AKM_CONFIG_DIR: join(root, "config"), AKM_DATA_DIR: join(root, "data"), AKM_CACHE_DIR: join(root, "cache"), HOME: root }
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp"], env, stderr: "ignore" })
  const client = new Client({ name: "akm-bench", version: "1.0.0" })
  const search = (i) => client.callTool({ name: "search", arguments: { query: QUERIES[i % QUERIES.length], limit: 20 } })
  onProgress("mcp: start")
  const started = process.hrtime.bigint()
  await client.connect(transport)
  await search(0)
  const firstAnswerMs = round2(Number(process.hrtime.bigint() - started) / 1e6)
  try {
    const pid = transport.pid
    for (let i = 0; i < 50; i++) await search(i) // warm-up
    const samples = []
    for (let i = 0; i < timed; i++) {
      const start = process.hrtime.bigint()
      await search(i)
      samples.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
    let calls = 50 + timed
    for (; calls < 1_000; calls++) await search(calls)
    const rssAt1k = rssMb(pid)
    for (; calls < longRun; calls++) {
      if (calls % 1000 === 0) onProgress(`mcp: call ${calls}/${longRun}`)
      await search(calls)
    }
    const rssAtEnd = rssMb(pid)
    return {
      items,
      firstAnswerMs,
      search: { calls: timed, p50Ms: round2(quantile(samples, 0.5)), p95Ms: round2(quantile(samples, 0.95)) },
      rss: { after1000Mb: rssAt1k, afterMb: rssAtEnd, calls: longRun, growthMb: rssAt1k === null || rssAtEnd === null ? null : round2(rssAtEnd - rssAt1k) },
      targets: MCP_TARGETS
    }
  } finally {
    await client.close()
  }
}

const mark = (value, target) => (value === null ? "" : value <= target ? " ok" : " MISSED")

export const mcpRows = (s) => [
  ["measure", "value", "target"],
  ["server start to first search answer", `${s.firstAnswerMs} ms`, ""],
  [`warm search round trip p50 (${s.search.calls} calls, ${s.items} items)`, `${s.search.p50Ms} ms`, `≤ ${s.targets.p50Ms} ms${mark(s.search.p50Ms, s.targets.p50Ms)}`],
  ["warm search round trip p95", `${s.search.p95Ms} ms`, `≤ ${s.targets.p95Ms} ms${mark(s.search.p95Ms, s.targets.p95Ms)}`],
  [`RSS after 1,000 / ${s.rss.calls.toLocaleString("en")} calls`, `${s.rss.after1000Mb} / ${s.rss.afterMb} MB`, `growth ≤ ${s.targets.rssGrowthMb} MB${mark(s.rss.growthMb, s.targets.rssGrowthMb)}`]
]
