// `npm run bench` (spec 10 §1): runs the benchmark sections, prints a table
// and writes the results as JSON.
//
//   node bench/run.mjs [--runs N] [--quick] [--large] [--sections LIST] [--json] [--out FILE]
//
//   --runs N    timed runs per command (default 20)
//   --sections LIST  only these sections, comma-separated: startup, index, search, quality, writes, stalls, improve, mcp, everything, claims, memory-sim, postgres (default: all;
//               postgres runs only with AKM_BENCH_DATABASE_URL, a server it may create and drop a database on),
//               or hybrid (opt-in, never in the default run: embeddings through a stub endpoint);
//               search or mcp without index builds only the 5,000-item corpus they search
//   --quick     5 runs and a 200-item corpus: a smoke check that the benchmark works, not a measurement
//   --large     also index a 50,000-item corpus
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
//     "runs": N, "loadavg": { "before": [1, 5, 15 min], "after": […] },
//     "reference": { "name": "node -e 0", "medianMs", "p95Ms", "minMs" },
//     "commands": [{ "name", "args", "medianMs", "p95Ms", "minMs",
//                    "ratio" (median / reference median), "p95Ratio",
//                    "target"? (spec 10 §2 bound on ratio), "proxyFor"? }]
//   }
//
//   "corpus": { "templates", "sizes": [{ "size", "files", "generateMs" }] }
//   "index":  { "runs": [{ "size", "items", "files",
//                          "full": { "ms", "itemsPerSecond", "peakRssMb", "scanMs" (the adapters' share) },
//                          "noop": { "ms" }, "changed": { "files", "ms", "updated" },
//                          "cli"? (5,000 items, or the one size): { "reference" (node -e 0), "noop": { "runs", "medianMs", "p95Ms", "minMs", "ratio" },
//                                   "full": { "runs", "medianMs", … }, "loadavg": { "before", "after" } } }], "targets" }
//   "search": { "items", "inProcess": { "queries", "p50Ms", "p95Ms" }, "inProcessTracked" (with the usage event),
//               "cli": { "rounds", "referenceMedianMs", "searchMedianMs", "ratio" }, "targets" }
//   "quality": { "curateGoldenSearch", "curateGoldenCurate" ({ ndcg, recall, mrr, noLeapfrog, composite }),
//                "rankingBaseline": { "passed", "total", "failures" }, "naturalLanguage": { "ndcg", "recall", "decoyAbove", … } }
//   "memory": { "items", "peakRssMb", "targetMb" } (the largest build ≤ 20,000 items)
//   "writes": { "size", "files", "remember": { "runs", "medianMs", "medianCpuMs", "maxMs", "peakRssMb", "statuses" },
//               "accept": { … }, "targets" } (an indexed 20,000-file bundle; --quick: 200)
//   "stalls": { "size", "files", "rounds", "targetMs", "operations": { "search" | "show" | "remember" | "accept":
//               { "maxMs" (longest event-loop stall over the rounds), "p50Ms", "ownMaxMs", "ownP50Ms" (less the run-queue wait, Linux), "first" (the first call's), "rounds" } } }
//               (in-process, perf_hooks monitorEventLoopDelay at 1 ms; an indexed 5,000-item corpus; --quick: 200)
//   "mcp": { "items", "firstAnswerMs", "search": { "calls", "p50Ms", "p95Ms" }, "rss": { "after1000Mb", "afterMb", "calls", "growthMb" },
//            "targets" } (akm mcp over stdio with the MCP SDK client; the kept 5,000-item corpus; --quick: 200 items, 1,000 calls)
//
//   "postgres": { "runs": [{ "size", "queries", "sqlite" | "postgres": { "items", "indexMs", "p50Ms", "p95Ms" },
//                 "ratios": { "index", "p50", "p95" } (PostgreSQL / index.db),
//                 "mcpHttp": { "sqlite" | "postgres": { "calls", "p50Ms", "p95Ms", "serverCpuMsPerCall" (the server child's
//                              user + system CPU per timed call, null off Linux) }, "ratios": { "p50", "p95" } } }] } or { "skipped" }
//               (bench/postgres.ts: one generated corpus, 5,000 items and with --large 50,000; in-process, then the same
//               queries as MCP `search` calls to a real `akm mcp --http` child on 127.0.0.1 per workspace, bench/mcpHttp.ts)
//
//   "memory-sim": { "memories", "weeks", "policy", "passes", "passesLeftAboveHighWater", "maxTierAfterPass", "finalTier",
//                   "retirements", "byDisposition", "purged", "archive": { "maxBytes", "finalBytes", "finalBlobs", "withinMax" },
//                   "audit": { "uniqueClaims", "lost", "lostExamples", "expiredOnly" }, "weekly": [{ "week", "arrived",
//                   "tierBeforePass", "tierAfterPass", "archiveBlobs", "archiveBytes" }], "targets" }
//               (bench/memorySim.ts: 10,000 memories over 20 simulated weeks through the consolidation planner and purge rule;
//               distinct from "memory", the index's peak RSS)
//
//   "improve": { "defects", "kinds", "variants", "tuning" | "heldOut" | "all": { "defects", "goodAccepted", "badAccepted", "badRejected",
//                "precision", "recall", "badRejectionRate" }, "triggerLift": { "proposals", "mrrBefore", "mrrAfter", "lift" },
//                "run": { "attempts", "wallMs", "modelCalls", "secondRunModelCalls", "secondRunGeneratorCalls" }, "misjudged" }
//               (bench/improve.ts on bench/fixtures/improve/fixture.json)
//
//   "everything": { "records", "rules", "docs", "files" (index.json items),
//                   "full": { "ms", "cpuMs", "exit", "ran" (steps that ran) }, "afterCommit": { "ms", "cpuMs", "ran" },
//                   "typo": { "doc", "ms", "cpuMs", "exit", "ran", "planned", "planMs", "planCpuMs", "generatingSkipped" }, "targets": { "fullMs", "typoMs" } }
//               (cpuMs: the child's user + system CPU time from /proc, null elsewhere: the load of a shared machine does not inflate it)
//               (akm everything as a CLI, wall time with process start, on a generated git repository:
//                2,000 ledger records, 200 rules, 500 docs; --quick changes nothing: the sizes are the issue's)
//
//   "claims": { "pairs", "minOverlap", "window", "overall": { "tp", "fp", "tn", "fn", "precision", "recall" },
//               "byCategory": { "covered/<category>" | "not-covered/<category>": { … } }, "mistakes", "ms", "cpuMs", "target": { "precision" } }
//               (bench/claims.mjs: the claim-coverage checker on test/fixtures/claims, R-MEM-4)
//
// The corpus, index, search and quality sections run in-process through
// bench/driver.ts (bundled by bench/sections/driver.mjs); timings stay in ms
// with a same-run reference wherever a ratio is the target.
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { cleanupDriver } from "./sections/driver.mjs"
import { improveRows, improveSection } from "./sections/improve.mjs"
import { memorySimRows, memorySimSection } from "./sections/memorySim.mjs"
import { indexCliRows, indexRows, indexSection } from "./sections/index.mjs"
import { mcpRows, mcpSection } from "./sections/mcp.mjs"
import { qualityRows, qualitySection } from "./sections/quality.mjs"
import { hybridRows, hybridSection } from "./sections/hybrid.mjs"
import { postgresRows, postgresSection } from "./sections/postgres.mjs"
import { searchRows, searchSection } from "./sections/search.mjs"
import { stallsRows, stallsSection } from "./sections/stalls.mjs"
import { writesRows, writesSection } from "./sections/writes.mjs"
import { everythingRows, everythingSection } from "./sections/everything.mjs"
import { claimsRows, claimsSection } from "./claims.mjs"
import { startupRows, startupSection } from "./startup.mjs"

const usage = "usage: node bench/run.mjs [--runs N] [--quick] [--large] [--sections startup,index,search,quality,writes,stalls,improve,mcp,everything,claims,memory-sim,postgres] [--json] [--out FILE]"
const SECTIONS = ["startup", "index", "search", "quality", "writes", "stalls", "improve", "mcp", "everything", "claims", "memory-sim", "postgres"]
// Opt-in only (never in the default run): hybrid retrieval through a stub embeddings endpoint.
const OPT_IN = ["hybrid"]

const parseFlags = (argv) => {
  const flags = { runs: 20, json: false, quick: false, large: false, sections: new Set(SECTIONS), out: fileURLToPath(new URL("results.json", import.meta.url)) }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--quick") {
      flags.runs = 5
      flags.quick = true
    } else if (arg === "--large") flags.large = true
    else if (arg === "--json") flags.json = true
    else if (arg === "--runs" || arg === "--out" || arg === "--sections") {
      const value = argv[++i]
      if (value === undefined) throw new Error(`${arg} needs a value`)
      if (arg === "--out") flags.out = value
      else if (arg === "--sections") {
        const names = value.split(",").map((name) => name.trim())
        const unknown = names.filter((name) => !SECTIONS.includes(name) && !OPT_IN.includes(name))
        if (unknown.length > 0) throw new Error(`unknown section ${unknown.join(", ")} (known: ${[...SECTIONS, ...OPT_IN].join(", ")})`)
        flags.sections = new Set(names)
      }
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
  sections: {}
}
const wanted = flags.sections
if (wanted.has("startup")) results.sections.startup = startupSection({ runs: flags.runs, onProgress: progress })
{
  const keepSize = flags.quick ? 200 : 5000
  // Search alone needs only the corpus it searches.
  const sizes = !wanted.has("index") ? (wanted.has("search") || wanted.has("mcp") ? [keepSize] : []) : flags.quick ? [200] : [1000, 5000, 20000, ...(flags.large ? [50000] : [])]
  try {
    if (sizes.length > 0) {
      const { section, keptRoot } = await indexSection({ sizes, keepSize, onProgress: progress, cliRuns: flags.runs })
      if (wanted.has("index")) {
        results.sections.corpus = { templates: section.runs[0]?.corpus.templates, sizes: section.runs.map((r) => ({ size: r.size, files: r.corpus.files, generateMs: r.corpus.generateMs })) }
        results.sections.index = section
        const memory = [...section.runs].filter((r) => r.size <= 20000).pop()
        results.sections.memory = { items: memory.items, peakRssMb: memory.full.peakRssMb, targetMb: 300 }
      }
      try {
        const kept = section.runs.find((r) => r.size === keepSize)
        if (wanted.has("search")) results.sections.search = await searchSection({ root: keptRoot, items: kept.items, queries: flags.quick ? 50 : 300, cliRounds: flags.quick ? 5 : flags.runs, onProgress: progress })
        if (wanted.has("mcp")) results.sections.mcp = await mcpSection({ root: keptRoot, items: kept.items, timed: flags.quick ? 200 : 1000, longRun: flags.quick ? 1_000 : 10_000, onProgress: progress })
      } finally {
        rmSync(keptRoot, { recursive: true, force: true })
      }
    }
    if (wanted.has("quality")) results.sections.quality = await qualitySection({ onProgress: progress })
    if (wanted.has("writes")) results.sections.writes = await writesSection({ size: flags.quick ? 200 : 20000, runs: flags.quick ? 1 : 3, onProgress: progress })
    if (wanted.has("stalls")) results.sections.stalls = await stallsSection({ size: flags.quick ? 200 : 5000, rounds: flags.quick ? 3 : 10, onProgress: progress })
    if (wanted.has("improve")) results.sections.improve = await improveSection({ onProgress: progress })
    if (wanted.has("everything")) results.sections.everything = await everythingSection({ onProgress: progress })
    if (wanted.has("claims")) results.sections.claims = await claimsSection()
    if (wanted.has("memory-sim")) results.sections["memory-sim"] = await memorySimSection({ onProgress: progress })
    if (wanted.has("hybrid")) results.sections.hybrid = await hybridSection({ size: flags.quick ? 200 : 5000, onProgress: progress })
    // Only with AKM_BENCH_DATABASE_URL (issue 27): index.db and PostgreSQL side by side on one corpus.
    if (wanted.has("postgres")) results.sections.postgres = await postgresSection({ sizes: flags.quick ? [200] : [5000, ...(flags.large ? [50000] : [])], queries: flags.quick ? 50 : 300, onProgress: progress })
  } finally {
    cleanupDriver()
  }
}
progress("")

writeFileSync(flags.out, `${JSON.stringify(results, null, 2)}\n`)
if (flags.json) {
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
} else {
  const { startup, index, search, quality, writes, stalls, improve, hybrid, mcp, everything, claims, postgres } = results.sections
  const memorySim = results.sections["memory-sim"]
  process.stdout.write(
    [
      `(load ${results.machine.loadavg.join(" ")}; NODE_EXTRA_CA_CERTS ${results.machine.env.NODE_EXTRA_CA_CERTS === null ? "unset" : "set"}; NODE_OPTIONS ${results.machine.env.NODE_OPTIONS ?? "unset"})`,
      ...(startup === undefined
        ? []
        : [
          `start-up — ${startup.runs} runs, wall time; ratio = median / median of \`node -e 0\` in the same run; load ${startup.loadavg.before.join(" ")} → ${startup.loadavg.after.join(" ")}`,
          table(startupRows(startup)),
          ""
        ]),
      ...(index === undefined
        ? []
        : [
          `index — in-process, fresh index.db; scan = the adapters' share of the full build; targets at 5,000 items (RSS at 20,000)`,
          table(index.runs.length === 0 ? [["-"]] : indexRows(index)),
          ...(index.runs.some((r) => r.cli !== undefined)
            ? ["", "index — CLI `akm index`, wall time including process start (median); full = from an empty index.db", table(indexCliRows(index))]
            : []),
          ""
        ]),
      ...(search === undefined ? [] : [`search — ${search.items} items`, table(searchRows(search)), ""]),
      ...(mcp === undefined ? [] : [`mcp — akm mcp over stdio with the MCP SDK client, ${mcp.items} items`, table(mcpRows(mcp)), ""]),
      ...(quality === undefined ? [] : ["quality", table(qualityRows(quality)), ""]),
      ...(writes === undefined ? [] : [`writes — in-process wall time of each command in a fresh process, indexed bundle of ${writes.files} files; targets ≤ 1 s`, table(writesRows(writes)), ""]),
      ...(stalls === undefined
        ? []
        : [`stalls — longest event-loop stall per request-path operation, in-process over ${stalls.rounds} rounds, ${stalls.files} files (first call apart)`, table(stallsRows(stalls)), ""]),
      ...(improve === undefined ? [] : [`improve — ${improve.defects} seeded defects (${improve.kinds.length} evidence kinds), a good and three bad candidates each; scripted generator`, table(improveRows(improve)), ""]),
      ...(everything === undefined ? [] : ["everything — akm everything as a CLI (process start included) on a generated git repository", table(everythingRows(everything)), ""]),
      ...(claims === undefined ? [] : [`claims — the claim-coverage checker on ${claims.pairs} labelled pairs (test/fixtures/claims), "covered" as the positive class`, table(claimsRows(claims)), ""]),
      ...(memorySim === undefined ? [] : [`memory-sim — ${memorySim.memories} memories over ${memorySim.weeks} simulated weeks; ${memorySim.passes} consolidation passes, ${memorySim.purged} purged`, table(memorySimRows(memorySim)), ""]),
      ...(hybrid === undefined ? [] : ["hybrid — opt-in; stub embeddings endpoint on 127.0.0.1, in-process", table(hybridRows(hybrid)), ""]),
      ...(postgres === undefined ? [] : ["postgres — index.db and the PostgreSQL index on one generated corpus, in-process and over MCP HTTP (akm mcp --http on 127.0.0.1); ratio = PostgreSQL / index.db", table(postgresRows(postgres)), ""]),
      `results: ${flags.out}`,
      ""
    ].join("\n")
  )
}
