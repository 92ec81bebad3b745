// The improve section: builds bench/improve.ts with esbuild and runs it in a
// fresh node process (see bench/improve.ts for what it measures).
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const repo = fileURLToPath(new URL("../..", import.meta.url))

export const improveSection = async ({ onProgress = () => {} } = {}) => {
  const cache = join(repo, "node_modules", ".cache")
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, "akm-bench-improve-"))
  try {
    const file = join(dir, "improve.mjs")
    await build({
      entryPoints: [join(repo, "bench", "improve.ts")],
      outfile: file,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "esm",
      external: ["better-sqlite3"],
      banner: { js: 'import { createRequire as __akmCreateRequire } from "node:module"; const require = __akmCreateRequire(import.meta.url);' },
      define: { "import.meta.url": JSON.stringify(`file://${join(repo, "bench", "improve.ts")}`) },
      logLevel: "warning"
    })
    onProgress("improve: four runs over the seeded defects")
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    if (run.status !== 0) throw new Error(`bench/improve.ts failed: ${run.stderr}`)
    return JSON.parse(run.stdout.trim().split("\n").pop())
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export const improveRows = (section) => [
  ["improve: held-out precision / recall", `${section.heldOut.precision} / ${section.heldOut.recall}`, "1 / 1"],
  ["improve: bad candidates rejected (held-out)", `${section.heldOut.badRejected}/${section.heldOut.badRejected + section.heldOut.badAccepted}`, "all"],
  ["improve: trigger MRR lift", `${section.triggerLift.mrrBefore} → ${section.triggerLift.mrrAfter}`, "> 0"],
  ["improve: one run (ms) / second run model calls", `${section.run.wallMs} / ${section.run.secondRunModelCalls}`, "— / 0"]
]
