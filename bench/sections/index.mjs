// The corpus, index and memory sections (spec 10 §1): for each corpus size, a
// fresh workspace with the generated corpus as one akm bundle; a full build
// from an empty index.db, a no-op reindex and a reindex after 1% of the files
// changed, all in-process (bench/driver.ts), plus the build's peak RSS. At
// 5,000 items also through the CLI (`akm index`, wall time including process
// start, next to `node -e 0` in the same rounds): a full build from an empty
// index.db and a no-op reindex, with the load average beside them.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { round2, summarize, timeInterleaved } from "../measure.mjs"
import { runStep } from "./driver.mjs"

const bin = fileURLToPath(new URL("../../bin/akm.js", import.meta.url))

/** The workspace of bench/driver.ts (dirs()) as the CLI's environment. */
const cliEnv = (root) => ({ ...process.env, AKM_CONFIG_DIR: join(root, "config"), AKM_DATA_DIR: join(root, "data"), AKM_CACHE_DIR: join(root, "cache") })

const load = () => loadavg().map((x) => Math.round(x * 100) / 100)

/**
 * `akm index` through the CLI on a built workspace: `noopRuns` no-op reindexes
 * interleaved with `node -e 0`, then `fullRuns` full builds from an empty
 * index.db (the index is left built).
 */
const cliIndex = (root, { noopRuns, fullRuns }) => {
  const env = cliEnv(root)
  const loadBefore = load()
  const reference = { name: "node -e 0", file: process.execPath, args: ["-e", "0"] }
  const noop = { name: "akm index (no-op)", file: process.execPath, args: [bin, "index", "--format", "json"] }
  const [referenceSamples, noopSamples] = timeInterleaved([reference, noop], { runs: noopRuns, cwd: root, env })
  const full = []
  for (let i = 0; i < fullRuns; i++) {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(join(root, "cache", `index.db${suffix}`), { force: true })
    const started = process.hrtime.bigint()
    const run = spawnSync(process.execPath, [bin, "index", "--format", "json"], { cwd: root, env, stdio: ["ignore", "ignore", "pipe"], timeout: 600_000 })
    if (run.status !== 0) throw new Error(`akm index exited with ${run.status ?? run.signal}: ${String(run.stderr).trim().slice(0, 2000)}`)
    full.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  const ref = summarize(referenceSamples)
  const noopStats = summarize(noopSamples)
  return {
    reference: ref,
    noop: { runs: noopRuns, ...noopStats, ratio: round2(noopStats.medianMs / ref.medianMs) },
    full: { runs: fullRuns, ...summarize(full) },
    loadavg: { before: loadBefore, after: load() }
  }
}

/** Targets of spec 10 §2, at 5,000 items unless said. */
export const INDEX_TARGETS = { fullMsAt5000: 2000, noopMsAt5000: 300, peakRssMbAt20000: 300, fullMsAt50000: 30_000 }

/**
 * Runs setup + build for each size. Keeps the workspace of `keepSize` (for the
 * search section) and returns its root; the caller removes it.
 */
export const indexSection = async ({ sizes, keepSize, onProgress, cliRuns = 10 }) => {
  const runs = []
  let kept
  for (const size of sizes) {
    const root = mkdtempSync(join(tmpdir(), `akm-bench-index-${size}-`))
    try {
      onProgress(`index: generating ${size} items`)
      const corpus = await runStep("setup", { root, size })
      onProgress(`index: building ${size} items`)
      const build = await runStep("build", { root })
      let cli
      if (size === 5000 || sizes.length === 1) {
        onProgress(`index: akm index through the CLI, ${size} items`)
        cli = cliIndex(root, { noopRuns: cliRuns, fullRuns: Math.max(1, Math.min(5, Math.round(cliRuns / 4))) })
      }
      runs.push({ size, corpus, ...build, ...(cli === undefined ? {} : { cli }) })
    } finally {
      if (size === keepSize) kept = root
      else rmSync(root, { recursive: true, force: true })
    }
  }
  return { section: { runs, targets: INDEX_TARGETS }, keptRoot: kept }
}

const mark = (value, target) => (target === undefined ? "" : value <= target ? " ok" : " MISSED")

/** The CLI rows: `akm index` wall time, process start included, with the load average beside it. */
export const indexCliRows = (section) => [
  ["items", "CLI full ms (median)", "CLI no-op ms (median, p95)", "node -e 0 ms", "no-op ratio", "load before → after"],
  ...section.runs.filter((r) => r.cli !== undefined).map((r) => [
    String(r.items),
    `${r.cli.full.medianMs.toFixed(0)}${mark(r.cli.full.medianMs, r.size === 5000 ? section.targets.fullMsAt5000 : undefined)} (${r.cli.full.runs} runs)`,
    `${r.cli.noop.medianMs.toFixed(0)}${mark(r.cli.noop.medianMs, r.size === 5000 ? section.targets.noopMsAt5000 : undefined)}, ${r.cli.noop.p95Ms.toFixed(0)} (${r.cli.noop.runs} runs)`,
    r.cli.reference.medianMs.toFixed(0),
    r.cli.noop.ratio.toFixed(2),
    `${r.cli.loadavg.before.join(" ")} → ${r.cli.loadavg.after.join(" ")}`
  ])
]

/** Table rows for the terminal. */
export const indexRows = (section) => [
  ["items", "full ms", "items/s", "scan ms", "peak RSS MB", "no-op ms", "1% changed ms"],
  ...section.runs.map((r) => [
    String(r.items),
    `${r.full.ms.toFixed(0)}${mark(r.full.ms, r.size === 5000 ? section.targets.fullMsAt5000 : r.size === 50000 ? section.targets.fullMsAt50000 : undefined)}`,
    String(r.full.itemsPerSecond),
    r.full.scanMs.toFixed(0),
    `${r.full.peakRssMb.toFixed(0)}${mark(r.full.peakRssMb, r.size === 20000 ? section.targets.peakRssMbAt20000 : undefined)}`,
    `${r.noop.ms.toFixed(0)}${mark(r.noop.ms, r.size === 5000 ? section.targets.noopMsAt5000 : undefined)}`,
    `${r.changed.ms.toFixed(0)} (${r.changed.files} files)`
  ])
]
