// Builds bench/driver.ts (the in-process steps) with esbuild into a temp file
// once per run, and runs one step of it in a fresh node process, so each
// step's timings and peak RSS are its own.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const repo = fileURLToPath(new URL("../..", import.meta.url))

let built

/**
 * The bundled driver's path; built on first use, removed by cleanupDriver().
 * It is written under node_modules/.cache so node resolves better-sqlite3
 * (external: a native addon) from the project.
 */
export const driverPath = async () => {
  if (built !== undefined) return built.file
  const cache = join(repo, "node_modules", ".cache")
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, "akm-bench-driver-"))
  const file = join(dir, "driver.mjs")
  await build({
    entryPoints: [join(repo, "bench", "driver.ts")],
    outfile: file,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    external: ["better-sqlite3", "pg-native"],
    banner: { js: 'import { createRequire as __akmCreateRequire } from "node:module"; const require = __akmCreateRequire(import.meta.url);' },
    // bench/*.ts find fixtures relative to their own folder.
    define: { "import.meta.url": JSON.stringify(`file://${join(repo, "bench", "driver.ts")}`) },
    logLevel: "warning"
  })
  built = { dir, file }
  return file
}

export const cleanupDriver = () => {
  if (built !== undefined) rmSync(built.dir, { recursive: true, force: true })
  built = undefined
}

/** Runs one driver step in a fresh process and returns its JSON result; a failing step stops the benchmark. */
export const runStep = async (step, options, { env = process.env, timeout = 600_000 } = {}) => {
  const file = await driverPath()
  const run = spawnSync(process.execPath, [file, step, JSON.stringify(options)], { cwd: repo, env, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 })
  if (run.status !== 0) throw new Error(`bench step ${step} exited with ${run.status ?? run.signal}: ${(run.stderr ?? "").trim().slice(0, 3000)}`)
  return JSON.parse(run.stdout)
}
