// The claims benchmark (spec 06 §8.4, R-MEM-4): the claim-coverage checker
// against the labelled pairs in test/fixtures/claims/, as a confusion matrix
// with "covered" as the positive class. Meant for the `memory` section of
// `npm run bench`:
//
//   import { claimsSection, claimsRows } from "./claims.mjs"
//   sections.memory = { ...sections.memory, claims: await claimsSection() }
//
// or on its own: node bench/claims.mjs [--json]
//
// Result: { "pairs", "minOverlap", "window", "overall": { tp, fp, tn, fn, precision, recall },
//           "byCategory": { "covered/<category>" | "not-covered/<category>": { … } },
//           "mistakes": [{ id, label, category, reason }], "ms" (wall), "cpuMs", "target": { "precision": 0.95 } }
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build } from "esbuild"

const repo = fileURLToPath(new URL("..", import.meta.url))
const fixtures = join(repo, "test", "fixtures", "claims")

/** Bundles the checker (TypeScript) once into a temp module and loads it. */
const loadChecker = async () => {
  const cache = join(repo, "node_modules", ".cache")
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, "akm-bench-claims-"))
  try {
    const file = join(dir, "benchmark.mjs")
    await build({
      stdin: {
        contents: `export * from "./src/domain/memory/claims/benchmark.ts"\nexport { DEFAULT_MIN_OVERLAP, DEFAULT_WINDOW } from "./src/domain/memory/Claims.ts"\n`,
        resolveDir: repo,
        loader: "ts"
      },
      outfile: file,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "esm",
      banner: { js: 'import { createRequire as __akmCreateRequire } from "node:module"; const require = __akmCreateRequire(import.meta.url);' },
      logLevel: "warning"
    })
    return await import(pathToFileURL(file).href)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export const claimsSection = async ({ onProgress = () => {} } = {}) => {
  const checker = await loadChecker()
  const pairs = readdirSync(fixtures)
    .filter((file) => /^pairs-.*\.yaml$/.test(file))
    .sort()
    .flatMap((file) => checker.parseBenchmark(readFileSync(join(fixtures, file), "utf8"), file))
  onProgress(`claims: ${pairs.length} labelled pairs`)
  const cpu = process.cpuUsage()
  const result = checker.scoreBenchmark(pairs)
  const used = process.cpuUsage(cpu)
  return { ...result, cpuMs: Math.round((used.user + used.system) / 100) / 10, minOverlap: checker.DEFAULT_MIN_OVERLAP, window: checker.DEFAULT_WINDOW, target: { precision: 0.95 } }
}

export const claimsRows = (section) => [
  ["memory: claims precision / recall (covered)", `${section.overall.precision} / ${section.overall.recall}`, "≥ 0.95 / —"],
  ["memory: claims TP / FP / TN / FN", `${section.overall.tp} / ${section.overall.fp} / ${section.overall.tn} / ${section.overall.fn}`, `${section.pairs} pairs`],
  ["memory: claims benchmark wall / cpu (ms)", `${section.ms} / ${section.cpuMs}`, "< 1000"]
]

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const section = await claimsSection()
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(section, null, 2))
  } else {
    for (const [name, value, target] of claimsRows(section)) console.log(`${name.padEnd(48)} ${value.padEnd(24)} ${target}`)
    console.log("")
    console.log(`${"category".padEnd(28)} ${"TP".padStart(4)} ${"FP".padStart(4)} ${"TN".padStart(4)} ${"FN".padStart(4)}`)
    for (const [category, c] of Object.entries(section.byCategory)) {
      console.log(`${category.padEnd(28)} ${String(c.tp).padStart(4)} ${String(c.fp).padStart(4)} ${String(c.tn).padStart(4)} ${String(c.fn).padStart(4)}`)
    }
    for (const mistake of section.mistakes) console.log(`${mistake.label === "covered" ? "FN" : "FP"} ${mistake.id} (${mistake.category}): ${mistake.reason}`)
  }
  if (section.overall.precision < section.target.precision) process.exitCode = 1
}
