// The memory-sim section (issue 23 item 8): builds bench/memorySim.ts with esbuild and runs it in a
// fresh node process (see bench/memorySim.ts for what it simulates and audits).
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const repo = fileURLToPath(new URL("../..", import.meta.url))

export const memorySimSection = async ({ onProgress = () => {} } = {}) => {
  const cache = join(repo, "node_modules", ".cache")
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, "akm-bench-memory-sim-"))
  try {
    const file = join(dir, "memorySim.mjs")
    await build({
      entryPoints: [join(repo, "bench", "memorySim.ts")],
      outfile: file,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "esm",
      external: ["better-sqlite3"],
      banner: { js: 'import { createRequire as __akmCreateRequire } from "node:module"; const require = __akmCreateRequire(import.meta.url);' },
      define: { "import.meta.url": JSON.stringify(`file://${join(repo, "bench", "memorySim.ts")}`) },
      logLevel: "warning"
    })
    onProgress("memory-sim: 10,000 memories over 20 simulated weeks")
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    if (run.status !== 0) throw new Error(`bench/memorySim.ts failed: ${run.stderr}`)
    return JSON.parse(run.stdout.trim().split("\n").pop())
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export const memorySimRows = (section) => [
  ["memory-sim: passes left above high water", String(section.passesLeftAboveHighWater), "0"],
  ["memory-sim: unique claims lost (of all)", `${section.audit.lost} (of ${section.audit.uniqueClaims})`, "0"],
  ["memory-sim: archive max bytes / bound", `${section.archive.maxBytes} / ${section.policy.archiveMaxBytes}`, "≤ bound"],
  ["memory-sim: tier max after a pass / high water", `${section.maxTierAfterPass} / ${section.policy.highWaterItems}`, "≤ high water"]
]
