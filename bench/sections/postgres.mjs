// The postgres section (issue 27 item 5), opt-in: only with AKM_BENCH_DATABASE_URL (a PostgreSQL server the
// bench may create and drop a database on). One generated corpus indexed and searched in-process on index.db
// and on the PostgreSQL index, in the same driver process, side by side with the ratios; then the same queries over
// MCP HTTP through a real `akm mcp --http` child on each workspace (bench/mcpHttp.ts).
import { runStep } from "./driver.mjs"

export const POSTGRES_URL_ENV = "AKM_BENCH_DATABASE_URL"

export const postgresSection = async ({ sizes, queries, onProgress }) => {
  const url = process.env[POSTGRES_URL_ENV]
  if (url === undefined || url === "") return { skipped: `set ${POSTGRES_URL_ENV} to run it` }
  const runs = []
  for (const size of sizes) {
    onProgress(`postgres: ${size} items on index.db and on PostgreSQL`)
    runs.push(await runStep("postgres", { url, size, queries }, { timeout: 3_600_000 }))
  }
  return { runs }
}

const cpu = (ms) => (ms === null ? "n/a" : `${ms} ms`)

/** The MCP-over-HTTP round trips (`akm mcp --http` children on 127.0.0.1) beside the in-process rows. */
const mcpHttpRows = (r) =>
  r.mcpHttp === undefined
    ? []
    : [
      [`search p50 over MCP HTTP (${r.mcpHttp.sqlite.calls} calls)`, `${r.mcpHttp.sqlite.p50Ms} ms`, `${r.mcpHttp.postgres.p50Ms} ms`, r.mcpHttp.ratios.p50.toFixed(2)],
      ["search p95 over MCP HTTP", `${r.mcpHttp.sqlite.p95Ms} ms`, `${r.mcpHttp.postgres.p95Ms} ms`, r.mcpHttp.ratios.p95.toFixed(2)],
      ["server CPU per MCP HTTP search", cpu(r.mcpHttp.sqlite.serverCpuMsPerCall), cpu(r.mcpHttp.postgres.serverCpuMsPerCall), ""]
    ]

export const postgresRows = (s) =>
  s.skipped !== undefined
    ? [["measure", "value"], ["postgres", `skipped: ${s.skipped}`]]
    : [
      ["measure", "index.db", "PostgreSQL", "ratio"],
      ...s.runs.flatMap((r) => [
        [`full index, ${r.sqlite.items} items`, `${r.sqlite.indexMs} ms`, `${r.postgres.indexMs} ms`, r.ratios.index.toFixed(2)],
        [`search p50 in-process (${r.queries} queries)`, `${r.sqlite.p50Ms} ms`, `${r.postgres.p50Ms} ms`, r.ratios.p50.toFixed(2)],
        ["search p95 in-process", `${r.sqlite.p95Ms} ms`, `${r.postgres.p95Ms} ms`, r.ratios.p95.toFixed(2)],
        ...mcpHttpRows(r)
      ])
    ]
