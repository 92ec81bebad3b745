// Runs one bench/*.ts script that measures on its own: bundled with esbuild
// into a temp file under node_modules/.cache (so node resolves better-sqlite3,
// a native addon, from the project), run in a fresh node process, and its last
// stdout line parsed as the section's JSON result.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const repo = fileURLToPath(new URL("../..", import.meta.url))

export const runBundledScript = async (name) => {
  const entry = join(repo, "bench", `${name}.ts`)
  const cache = join(repo, "node_modules", ".cache")
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, `akm-bench-${name}-`))
  try {
    const file = join(dir, `${name}.mjs`)
    await build({
      entryPoints: [entry],
      outfile: file,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "esm",
      external: ["better-sqlite3"],
      banner: { js: 'import { createRequire as __akmCreateRequire } from "node:module"; const require = __akmCreateRequire(import.meta.url);' },
      // The script finds its fixtures relative to its own folder.
      define: { "import.meta.url": JSON.stringify(`file://${entry}`) },
      logLevel: "warning"
    })
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    if (run.status !== 0) throw new Error(`bench/${name}.ts failed: ${run.stderr}`)
    return JSON.parse(run.stdout.trim().split("\n").pop())
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
