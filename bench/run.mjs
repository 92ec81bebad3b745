// `npm run bench` (spec 10 §1): runs the benchmark sections, prints a table
// and writes the results as JSON.
//
//   node bench/run.mjs [--runs N] [--quick] [--json] [--out FILE]
//
//   --runs N    timed runs per command (default 20)
//   --quick     5 runs: a smoke check that the benchmark works, not a measurement
//   --json      print the results JSON on stdout instead of the table
//   --out FILE  where to write the results (default bench/results.json, gitignored)
//
// The results file:
//
//   {
//     "schemaVersion": 1,
//     "createdAt": ISO time, "akm": version,
//     "machine": { "node", "platform", "arch", "cpus", "loadavg",
//                  "env": { "NODE_OPTIONS", "NODE_EXTRA_CA_CERTS" } (as inherited by every child) },
//     "sections": { "<name>": { … } }
//   }
//
// Each section is a key of "sections", present only when it ran. Today:
//
//   "startup": {
//     "runs": N,
//     "reference": { "name": "node -e 0", "medianMs", "p95Ms", "minMs" },
//     "commands": [{ "name", "args", "medianMs", "p95Ms", "minMs",
//                    "ratio" (median / reference median), "p95Ratio",
//                    "target"? (spec 10 §2 bound on ratio), "proxyFor"? }]
//   }
//
// The other sections of spec 10 §1 (corpus, index, search, quality, memory)
// join as keys of "sections" with the issues that build what they measure;
// timings stay in ms with a same-run reference wherever a ratio is the target.
import { readFileSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { startupRows, startupSection } from "./startup.mjs"

const usage = "usage: node bench/run.mjs [--runs N] [--quick] [--json] [--out FILE]"

const parseFlags = (argv) => {
  const flags = { runs: 20, json: false, out: fileURLToPath(new URL("results.json", import.meta.url)) }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--quick") flags.runs = 5
    else if (arg === "--json") flags.json = true
    else if (arg === "--runs" || arg === "--out") {
      const value = argv[++i]
      if (value === undefined) throw new Error(`${arg} needs a value`)
      if (arg === "--out") flags.out = value
      else if (/^[1-9]\d*$/.test(value)) flags.runs = Number(value)
      else throw new Error(`--runs needs a positive whole number, not ${value}`)
    } else throw new Error(`unknown flag ${arg}`)
  }
  return flags
}

const table = (rows) => {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join("  ").trimEnd()).join("\n")
}

let flags
try {
  flags = parseFlags(process.argv.slice(2))
} catch (error) {
  process.stderr.write(`${error.message}\n${usage}\n`)
  process.exit(2)
}

const dist = new URL("../dist/cli/main.cjs", import.meta.url)
try {
  readFileSync(dist)
} catch {
  process.stderr.write("dist/ is not built: run `npm run bench` (or `npm run build` first)\n")
  process.exit(1)
}

const progress = process.stderr.isTTY ? (line) => process.stderr.write(`\r${line}\u001b[K`) : () => {}
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
const results = {
  schemaVersion: 1,
  createdAt: new Date().toISOString(),
  akm: pkg.version,
  machine: {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: cpus().length,
    loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
    // Both change every node start-up, the reference included.
    env: { NODE_OPTIONS: process.env.NODE_OPTIONS ?? null, NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? null }
  },
  sections: {
    startup: startupSection({ runs: flags.runs, onProgress: progress })
  }
}
progress("")

writeFileSync(flags.out, `${JSON.stringify(results, null, 2)}\n`)
if (flags.json) {
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
} else {
  const { startup } = results.sections
  process.stdout.write(
    [
      `start-up — ${startup.runs} runs, wall time; ratio = median / median of \`node -e 0\` in the same run`,
      `(load ${results.machine.loadavg.join(" ")}; NODE_EXTRA_CA_CERTS ${results.machine.env.NODE_EXTRA_CA_CERTS === null ? "unset" : "set"}; NODE_OPTIONS ${results.machine.env.NODE_OPTIONS ?? "unset"})`,
      table(startupRows(startup)),
      `results: ${flags.out}`,
      ""
    ].join("\n")
  )
}
