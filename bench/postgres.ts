import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeAkmLive } from "../src/layers/AkmLive.js"
import { IndexStorePg } from "../src/layers/postgres/IndexStorePg.js"
import { bundleAdd } from "../src/programs/bundle/add.js"
import { indexBundles } from "../src/programs/indexBundles.js"
import { search } from "../src/programs/search.js"
import { benchQueries, generateCorpus } from "./corpus.js"
import { mcpHttpSearch } from "./mcpHttp.js"
import { quantile } from "./quantile.js"

/**
 * The `postgres` bench step (issue 27 item 5): one generated corpus indexed
 * and searched in-process on index.db and on IndexStorePg (a database of its
 * own beside the one the URL names, dropped afterwards), side by side.
 */

const admin = (url: string, statement: string) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.build(PgClient.layer({ url: Redacted.make(url) })), (ctx) => Context.get(ctx, PgClient.PgClient).unsafe(statement))))

type Live = ReturnType<typeof makeAkmLive>

const measure = async (runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<Live>, unknown>, queries: ReadonlyArray<string>) => {
  let started = performance.now()
  const full = await runtime.runPromise(indexBundles({}))
  const indexMs = Math.round(performance.now() - started)
  for (const query of queries.slice(0, 20)) await runtime.runPromise(search({ query, limit: 20, track: false }))
  const samples: Array<number> = []
  for (const query of queries) {
    started = performance.now()
    await runtime.runPromise(search({ query, limit: 20, track: false }))
    samples.push(performance.now() - started)
  }
  return { items: full.totals.items, indexMs, p50Ms: quantile(samples, 0.5), p95Ms: quantile(samples, 0.95) }
}

/**
 * The same queries over MCP HTTP: a real `akm mcp --http` on each indexed
 * workspace, the PostgreSQL one switched to `storage.kind: postgres` (index and
 * state in the bench database) as a team server runs.
 */
const measureMcpHttp = async (root: string, databaseUrl: string, queries: ReadonlyArray<string>) => {
  const sqlite = await mcpHttpSearch(join(root, "sqlite"), queries)
  appendFileSync(join(root, "postgres", "config", "config.yaml"), "\nstorage:\n  kind: postgres\n  url: env:AKM_DATABASE_URL\n")
  const postgres = await mcpHttpSearch(join(root, "postgres"), queries, { AKM_DATABASE_URL: databaseUrl })
  return { sqlite, postgres }
}

export const postgresStep = async (o: Record<string, unknown>) => {
  const url = String(o.url)
  const size = Number(o.size)
  const queries = benchQueries(Number(o.queries))
  const root = mkdtempSync(join(tmpdir(), "akm-bench-pg-"))
  const corpus = join(root, "corpus")
  mkdirSync(corpus, { recursive: true })
  const base = new URL(url)
  const name = `${base.pathname.slice(1) || "akm"}_bench_${process.pid}`.replace(/[^a-z0-9_]/gi, "_").toLowerCase()
  await admin(url, `CREATE DATABASE "${name}"`)
  base.pathname = `/${name}`
  const open = async (label: string, pg: boolean) => {
    const home = join(root, label)
    const live = makeAkmLive({ configDir: join(home, "config"), dataDir: join(home, "data"), cacheDir: join(home, "cache"), quiet: true })
    const runtime = ManagedRuntime.make(pg ? Layer.merge(live, IndexStorePg.pipe(Layer.provide(PgClient.layer({ url: Redacted.make(base.toString()) })))) : live)
    // Added while still empty (`bundle add` indexes at once): the full build is what is measured.
    await runtime.runPromise(bundleAdd({ source: corpus, name: "corpus", adapter: "akm", cwd: home, home }))
    return runtime
  }
  try {
    const sqliteRuntime = await open("sqlite", false)
    const pgRuntime = await open("postgres", true)
    generateCorpus({ dir: corpus, size })
    const sqlite = await measure(sqliteRuntime, queries).finally(() => sqliteRuntime.dispose())
    const postgres = await measure(pgRuntime, queries).finally(() => pgRuntime.dispose())
    const mcpHttp = await measureMcpHttp(root, base.toString(), queries)
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100
    return {
      size,
      queries: queries.length,
      sqlite,
      postgres,
      ratios: { index: ratio(postgres.indexMs, sqlite.indexMs), p50: ratio(postgres.p50Ms, sqlite.p50Ms), p95: ratio(postgres.p95Ms, sqlite.p95Ms) },
      mcpHttp: { ...mcpHttp, ratios: { p50: ratio(mcpHttp.postgres.p50Ms, mcpHttp.sqlite.p50Ms), p95: ratio(mcpHttp.postgres.p95Ms, mcpHttp.sqlite.p95Ms) } }
    }
  } finally {
    await admin(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    rmSync(root, { recursive: true, force: true })
  }
}
