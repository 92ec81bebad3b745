// The search section (spec 10 §1): in-process latency over generated queries
// (bench/driver.ts, with and without the usage event), and the wall time of
// `akm search` through the CLI next to `node -e 0`, interleaved in the same
// rounds so load hits both alike.
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { quantile, round2 } from "../measure.mjs"
import { runStep } from "./driver.mjs"

const bin = fileURLToPath(new URL("../../bin/akm.js", import.meta.url))

export const SEARCH_TARGETS = { p50Ms: 3, p95Ms: 10, cliRatio: 2.0 }

/** Words for the CLI rounds: one query per round, cycling. */
const CLI_QUERIES = ["docker compose", "release notes", "code review", "deploy", "incident response", "kubernetes", "testing", "changelog", "svelte component", "metrics"]

const wall = (file, args, env) => {
  const start = process.hrtime.bigint()
  const run = spawnSync(file, args, { env, stdio: ["ignore", "ignore", "pipe"], timeout: 60_000 })
  if (run.status !== 0) throw new Error(`${args.join(" ")} exited with ${run.status ?? run.signal}: ${String(run.stderr).slice(0, 1000)}`)
  return Number(process.hrtime.bigint() - start) / 1e6
}

export const searchSection = async ({ root, items, queries, cliRounds, onProgress }) => {
  onProgress("search: in-process")
  const inProcess = await runStep("search", { root, queries })
  const tracked = await runStep("search", { root, queries, track: true })
  const env = { ...process.env, AKM_CONFIG_DIR: join(root, "config"), AKM_DATA_DIR: join(root, "data"), AKM_CACHE_DIR: join(root, "cache"), HOME: root }
  // Warm-up: page cache and, on a fresh build, akm's code cache.
  wall(process.execPath, ["-e", "0"], env)
  wall(process.execPath, [bin, "search", "warm up", "--no-track"], env)
  const reference = []
  const cli = []
  for (let round = 0; round < cliRounds; round++) {
    onProgress(`search: CLI round ${round + 1}/${cliRounds}`)
    reference.push(wall(process.execPath, ["-e", "0"], env))
    cli.push(wall(process.execPath, [bin, "search", CLI_QUERIES[round % CLI_QUERIES.length], "--format", "json"], env))
  }
  const referenceMs = round2(quantile(reference, 0.5))
  const cliMs = round2(quantile(cli, 0.5))
  return {
    items,
    inProcess,
    inProcessTracked: tracked,
    cli: { rounds: cliRounds, referenceMedianMs: referenceMs, searchMedianMs: cliMs, ratio: round2(cliMs / referenceMs), searchP95Ms: round2(quantile(cli, 0.95)) },
    targets: SEARCH_TARGETS
  }
}

const mark = (value, target) => (value <= target ? " ok" : " MISSED")

export const searchRows = (s) => [
  ["measure", "value", "target"],
  [`in-process p50 (${s.inProcess.queries} queries, ${s.items} items)`, `${s.inProcess.p50Ms} ms`, `≤ ${s.targets.p50Ms} ms${mark(s.inProcess.p50Ms, s.targets.p50Ms)}`],
  ["in-process p95", `${s.inProcess.p95Ms} ms`, `≤ ${s.targets.p95Ms} ms${mark(s.inProcess.p95Ms, s.targets.p95Ms)}`],
  ["in-process p50 / p95 with the usage event", `${s.inProcessTracked.p50Ms} / ${s.inProcessTracked.p95Ms} ms`, ""],
  [`CLI akm search p50 (${s.cli.rounds} rounds)`, `${s.cli.searchMedianMs} ms`, ""],
  ["node -e 0 p50, same rounds", `${s.cli.referenceMedianMs} ms`, ""],
  ["CLI ratio", s.cli.ratio.toFixed(2), `≤ ${s.targets.cliRatio.toFixed(1)}${mark(s.cli.ratio, s.targets.cliRatio)}`]
]
