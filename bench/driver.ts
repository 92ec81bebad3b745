/**
 * The in-process half of `npm run bench` (spec 10 §1): bench/sections/*.mjs
 * bundle this file with esbuild and run it in fresh node processes, one step
 * each, so every step's peak RSS is its own. A step reads its options as JSON
 * from argv[3] and prints its result as JSON on stdout.
 *
 *   setup   {root, size}          generate the corpus under root and add it as bundle "corpus" (adapter akm)
 *   build   {root}                delete index.db, index from scratch, then a no-op reindex, then one after 1% of files changed,
 *                                 then a scan alone (the adapter's share of the full build)
 *   full    {root}                delete index.db and index from scratch only (for profiling the full build)
 *   search  {root, queries, track} in-process search latency over `queries` generated queries
 *   remember {root}               one `akm remember` into the indexed corpus: wall time and this process's peak RSS
 *   propose  {root}               a one-file edit of an existing item, stored as a pending proposal; prints its id
 *   accept   {root, id}           `akm proposal accept` of that proposal: wall time and peak RSS
 *   stalls  {root, rounds}        the longest event-loop stall (perf_hooks monitorEventLoopDelay, 1 ms resolution) of each
 *                                 request-path operation in-process: search, show, remember, proposal accept of one file
 *   postgres {url, size, queries} one corpus indexed and searched in-process on index.db and on IndexStorePg, then over MCP HTTP (bench/postgres.ts)
 *   quality {}                    curate-golden (search and curate) and ranking-baseline over ../shared/bench, plus the natural-language set
 */
import { Effect, ManagedRuntime } from "effect"
import { createRequire } from "node:module"
import { setFlagsFromString } from "node:v8"
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { makeAkmLive } from "../src/layers/AkmLive.js"
import { bundleAdd } from "../src/programs/bundle/add.js"
import { curate } from "../src/programs/curate.js"
import { indexBundles } from "../src/programs/indexBundles.js"
import { resolveBundle, scanStreamed } from "../src/programs/scan.js"
import { BundleFiles } from "../src/services/BundleFiles.js"
import { proposalAccept } from "../src/programs/proposals/accept.js"
import { propose } from "../src/programs/proposals/propose.js"
import { remember } from "../src/programs/remember.js"
import { search } from "../src/programs/search.js"
import { show } from "../src/programs/show.js"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import { sha256Hex } from "../src/domain/Proposal.js"
import { benchQueries, generateCorpus, touchOnePercent, type Corpus } from "./corpus.js"
import { startEmbeddingStub } from "./embeddingStub.js"
import { naturalLanguageSet } from "./naturalLanguage.js"
import { WorkspaceConfig } from "../src/services/WorkspaceConfig.js"
import { postgresStep } from "./postgres.js"
import { fixtureCopy, hasSharedBench, runCurateGolden, runRankingBaseline } from "./quality.js"
import { quantile } from "./quantile.js"

// The steps that build the index run under the V8 flags bin/akm.js sets for `akm index` and `akm bundle add`,
// so their figures are the CLI's (docs/decisions/0059-v8-flags.md).
if (["setup", "build", "full"].includes(process.argv[2] ?? "")) setFlagsFromString((createRequire(import.meta.url)("../bin/v8Flags.cjs") as { readonly on: string }).on)

/** The CLI's projector worker (npm run bench builds dist/ first): the index is measured as `akm index` runs it. */
const projectorWorker = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "cli", "projector-worker.cjs")

const dirs = (root: string) => ({ configDir: join(root, "config"), dataDir: join(root, "data"), cacheDir: join(root, "cache"), quiet: true, projectorWorker })

const runtimeFor = (root: string) => ManagedRuntime.make(makeAkmLive(dirs(root)))

const ms = (start: number): number => Math.round((performance.now() - start) * 100) / 100

/** Peak resident set size of this process so far, in MB. */
const peakRssMb = (): number => Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10

/** Walks and projects a bundle as an index run does, handing each batch of documents to nothing. */
const scanOnly = (name: string) =>
  Effect.gen(function* () {
    const { info, adapter } = yield* resolveBundle(name)
    const walked = yield* (yield* BundleFiles).walk(info.root, { includeHidden: adapter.includeHidden ?? false })
    return yield* scanStreamed(info, adapter, walked, () => Effect.void)
  })

const corpusFile = (root: string) => join(root, "corpus.json")

const steps: Record<string, (options: Record<string, unknown>) => Promise<unknown>> = {
  postgres: postgresStep,

  setup: async (o) => {
    const root = String(o.root)
    const corpusDir = join(root, "corpus")
    mkdirSync(corpusDir, { recursive: true })
    const runtime = runtimeFor(root)
    try {
      // Added while still empty: `bundle add` indexes at once, and the full build is what `build` measures.
      await runtime.runPromise(bundleAdd({ source: corpusDir, name: "corpus", adapter: "akm", cwd: root, home: root }))
    } finally {
      await runtime.dispose()
    }
    const started = performance.now()
    const corpus = generateCorpus({ dir: corpusDir, size: Number(o.size) })
    writeFileSync(corpusFile(root), JSON.stringify(corpus))
    return { files: corpus.files, templates: corpus.templates, generateMs: ms(started) }
  },

  build: async (o) => {
    const root = String(o.root)
    const corpus = JSON.parse(readFileSync(corpusFile(root), "utf8")) as Corpus
    for (const suffix of ["", "-wal", "-shm"]) rmSync(join(root, "cache", `index.db${suffix}`), { force: true })
    const runtime = runtimeFor(root)
    try {
      let started = performance.now()
      const full = await runtime.runPromise(indexBundles({}))
      const fullMs = ms(started)
      const fullRssMb = peakRssMb()
      started = performance.now()
      const noop = await runtime.runPromise(indexBundles({}))
      const noopMs = ms(started)
      const changed = touchOnePercent(corpus)
      started = performance.now()
      const incremental = await runtime.runPromise(indexBundles({}))
      const changedMs = ms(started)
      // The adapter's share of a full build: walk, plan and project every item, without persisting. The
      // documents are dropped as they come (not collected as `akm scan` does), so the step's peak RSS is the index's.
      started = performance.now()
      await runtime.runPromise(scanOnly("corpus"))
      const scanMs = ms(started)
      return {
        items: full.totals.items,
        files: corpus.files,
        full: { ms: fullMs, itemsPerSecond: Math.round(full.totals.items / (fullMs / 1000)), peakRssMb: fullRssMb, scanMs },
        noop: { ms: noopMs, status: noop.bundles.map((b) => b.status) },
        changed: { files: changed, ms: changedMs, updated: incremental.totals.updated, added: incremental.totals.added, removed: incremental.totals.removed }
      }
    } finally {
      await runtime.dispose()
    }
  },

  full: async (o) => {
    const root = String(o.root)
    for (const suffix of ["", "-wal", "-shm"]) rmSync(join(root, "cache", `index.db${suffix}`), { force: true })
    const runtime = runtimeFor(root)
    try {
      const started = performance.now()
      const cpu = process.cpuUsage()
      const full = await runtime.runPromise(indexBundles({}))
      const used = process.cpuUsage(cpu)
      return { items: full.totals.items, ms: ms(started), cpuMs: Math.round((used.user + used.system) / 1000), peakRssMb: peakRssMb() }
    } finally {
      await runtime.dispose()
    }
  },

  remember: async (o) => {
    const runtime = runtimeFor(String(o.root))
    try {
      const started = performance.now()
      const cpu = process.cpuUsage()
      const made = await runtime.runPromise(remember({ text: `The staging runner ${String(o.n ?? 0)} needs an allow-listed IP before deploys.`, bundle: "corpus" }))
      const used = process.cpuUsage(cpu)
      return { ms: ms(started), cpuMs: Math.round((used.user + used.system) / 1000), peakRssMb: peakRssMb(), status: made.status }
    } finally {
      await runtime.dispose()
    }
  },

  propose: async (o) => {
    const root = String(o.root)
    const corpus = JSON.parse(readFileSync(corpusFile(root), "utf8")) as Corpus
    const file = corpus.paths.find((p) => p.startsWith("knowledge/") && p.endsWith(".md")) ?? corpus.paths[0]!
    const bytes = readFileSync(join(root, "corpus", file))
    const runtime = runtimeFor(root)
    try {
      const { proposal } = await runtime.runPromise(propose({
        title: "bench: one-file edit",
        recipe: "manual",
        changeClass: "semantic",
        changes: [{ bundle: "corpus", path: file, beforeHash: sha256Hex(bytes), after: `${bytes.toString("utf8")}
One more line from the benchmark.
` }]
      }))
      return { id: proposal.id, file, verdict: proposal.evaluation?.verdict }
    } finally {
      await runtime.dispose()
    }
  },

  accept: async (o) => {
    const runtime = runtimeFor(String(o.root))
    try {
      const started = performance.now()
      const cpu = process.cpuUsage()
      const accepted = await runtime.runPromise(proposalAccept(String(o.id)))
      const used = process.cpuUsage(cpu)
      return { ms: ms(started), cpuMs: Math.round((used.user + used.system) / 1000), peakRssMb: peakRssMb(), status: accepted.status }
    } finally {
      await runtime.dispose()
    }
  },

  search: async (o) => {
    const root = String(o.root)
    const queries = benchQueries(Number(o.queries))
    const track = o.track === true
    const runtime = runtimeFor(root)
    try {
      for (const query of queries.slice(0, 20)) await runtime.runPromise(search({ query, limit: 20, track }))
      const samples: Array<number> = []
      let hits = 0
      for (const query of queries) {
        const started = performance.now()
        const result = await runtime.runPromise(search({ query, limit: 20, track }))
        samples.push(performance.now() - started)
        if (result.hits.length > 0) hits++
      }
      return { queries: queries.length, withHits: hits, track, p50Ms: quantile(samples, 0.5), p95Ms: quantile(samples, 0.95), maxMs: quantile(samples, 1) }
    } finally {
      await runtime.dispose()
    }
  },

  // Hybrid retrieval (R-SRCH-4), opt-in: embedding a fresh corpus through the stub endpoint on 127.0.0.1, an
  // index run with every vector already stored, and search latency with vectors present, lexical alone, and
  // with the endpoint stopped (each query then waits for the refused connection and answers lexically).
  hybrid: async (o) => {
    const size = Number(o.size ?? 5000)
    const dimensions = Number(o.dimensions ?? 384)
    const root = join(tmpdir(), `akm-bench-hybrid-${process.pid}`)
    const corpusDir = join(root, "corpus")
    mkdirSync(corpusDir, { recursive: true })
    generateCorpus({ dir: corpusDir, size })
    const stub = await startEmbeddingStub(dimensions)
    const runtime = runtimeFor(root)
    const latency = async (queries: ReadonlyArray<string>) => {
      const samples: Array<number> = []
      for (const query of queries) {
        const started = performance.now()
        await runtime.runPromise(search({ query, limit: 20, track: false }))
        samples.push(performance.now() - started)
      }
      return { queries: queries.length, p50Ms: quantile(samples, 0.5), p95Ms: quantile(samples, 0.95) }
    }
    try {
      await runtime.runPromise(bundleAdd({ source: corpusDir, name: "corpus", adapter: "akm", cwd: root, home: root }))
      const queries = benchQueries(Number(o.queries ?? 100))
      for (const query of queries.slice(0, 10)) await runtime.runPromise(search({ query, limit: 20, track: false }))
      const lexical = await latency(queries)
      await runtime.runPromise(Effect.flatMap(WorkspaceConfig, (w) => w.update((e) => e.set(["search", "embeddings"], { baseUrl: stub.baseUrl, model: "stub-hash", dimensions }))))
      let started = performance.now()
      await runtime.runPromise(indexBundles({}))
      const embedMs = ms(started)
      const requests = stub.requests()
      const inputs = stub.inputs()
      started = performance.now()
      await runtime.runPromise(indexBundles({}))
      const reindexMs = ms(started)
      const reembedded = stub.inputs() - inputs
      for (const query of queries.slice(0, 10)) await runtime.runPromise(search({ query, limit: 20, track: false }))
      const hybrid = await latency(queries)
      await stub.stop()
      const down = await latency(queries.slice(0, 20))
      return { items: size, dimensions, embed: { ms: embedMs, itemsPerSecond: Math.round(inputs / (embedMs / 1000)), requests, inputs }, reindex: { ms: reindexMs, reembedded }, lexical, hybrid, endpointDown: down }
    } finally {
      await runtime.dispose()
      await stub.stop().catch(() => undefined)
      rmSync(root, { recursive: true, force: true })
    }
  },

  stalls: async (o) => {
    const root = String(o.root)
    const rounds = Number(o.rounds ?? 10)
    const corpus = JSON.parse(readFileSync(corpusFile(root), "utf8")) as Corpus
    const queries = benchQueries(rounds)
    const runtime = runtimeFor(root)
    /**
     * This thread's run-queue wait so far, in ms (Linux /proc schedstat, opened on the main thread): time
     * it was ready to run but the machine ran something else. Undefined where the file does not exist.
     */
    const schedstat = (() => {
      try {
        return openSync("/proc/thread-self/schedstat", "r")
      } catch {
        return undefined
      }
    })()
    const schedBuffer = Buffer.alloc(128)
    const runQueueMs = (): number | undefined => {
      if (schedstat === undefined) return undefined
      const read = readSync(schedstat, schedBuffer, 0, schedBuffer.length, 0)
      const waited = Number(schedBuffer.toString("latin1", 0, read).split(" ")[1])
      return Number.isFinite(waited) ? waited / 1e6 : undefined
    }
    /**
     * The longest time the event loop could not turn while `run` ran: a 1 ms timer
     * histogram around the operation, read after one more turn so a stall at its
     * end is counted. An MCP server or any embedding program stalls this long.
     * `own` is the longest interval of a second 1 ms timer less this thread's
     * run-queue wait in it: the stall the program made itself (its CPU, its GC,
     * its synchronous disk waits), without the time a loaded machine kept it off
     * the cores (decision 0053).
     */
    const stallOf = async (run: () => Promise<unknown>): Promise<{ wall: number; own: number | undefined }> => {
      const histogram = monitorEventLoopDelay({ resolution: 1 })
      let last = performance.now()
      let lastWait = runQueueMs()
      let own: number | undefined = lastWait === undefined ? undefined : 0
      const tick = setInterval(() => {
        const now = performance.now()
        const wait = runQueueMs()
        if (own !== undefined && wait !== undefined && lastWait !== undefined) own = Math.max(own, now - last - (wait - lastWait))
        last = now
        lastWait = wait
      }, 1)
      histogram.enable()
      // Let the 1 ms timer tick first: a stall before its first tick would go unrecorded.
      await sleep(3)
      await run()
      await sleep(5)
      histogram.disable()
      clearInterval(tick)
      const round = (x: number) => Math.round(x * 100) / 100
      return { wall: round(histogram.max / 1e6), own: own === undefined ? undefined : round(own) }
    }
    const file = corpus.paths.find((p) => p.startsWith("knowledge/") && p.endsWith(".md")) ?? corpus.paths[0]!
    /** Each operation's setup (a search to find a ref, a proposal to accept) runs before it, unmeasured. */
    const operations: Record<string, (n: number) => Promise<() => Promise<unknown>>> = {
      // The noise floor: no work at all, only the machine's scheduling delays (large under load).
      idle: async () => () => sleep(20),
      search: async (n) => () => runtime.runPromise(search({ query: queries[n % queries.length]!, limit: 20 })),
      show: async (n) => {
        const found = await runtime.runPromise(search({ query: queries[n % queries.length]!, limit: 1, track: false }))
        const ref = found.hits[0]?.ref ?? `corpus//${file.replace(/\.md$/, "")}`
        return () => runtime.runPromise(show({ ref }))
      },
      remember: async (n) => () => runtime.runPromise(remember({ text: `The stall probe ${n} needs an allow-listed IP before deploys.`, bundle: "corpus" })),
      accept: async (n) => {
        const bytes = readFileSync(join(root, "corpus", file))
        const { proposal } = await runtime.runPromise(propose({
          title: `bench: stall probe ${n}`,
          recipe: "manual",
          changeClass: "semantic",
          changes: [{ bundle: "corpus", path: file, beforeHash: sha256Hex(bytes), after: `${bytes.toString("utf8")}\nStall probe ${n}.\n` }]
        }))
        return () => runtime.runPromise(proposalAccept(proposal.id))
      }
    }
    try {
      const result: Record<string, { first: number; maxMs: number; p50Ms: number; ownMaxMs?: number; ownP50Ms?: number; rounds: number }> = {}
      for (const [name, operation] of Object.entries(operations)) {
        // The first call opens databases and loads modules: reported apart from the steady state.
        const first = (await stallOf(await operation(0))).wall
        const samples: Array<{ wall: number; own: number | undefined }> = []
        for (let n = 1; n <= rounds; n++) samples.push(await stallOf(await operation(n)))
        const walls = samples.map((s) => s.wall)
        const owns = samples.flatMap((s) => (s.own === undefined ? [] : [s.own]))
        result[name] = {
          first,
          maxMs: Math.max(...walls),
          p50Ms: quantile(walls, 0.5),
          ...(owns.length === samples.length ? { ownMaxMs: Math.max(...owns), ownP50Ms: quantile(owns, 0.5) } : {}),
          rounds
        }
      }
      return result
    } finally {
      if (schedstat !== undefined) closeSync(schedstat)
      await runtime.dispose()
    }
  },

  quality: async () => {
    const mount = async (source: string, adapter: string, more: ReadonlyArray<{ readonly source: string; readonly name: string; readonly adapter: string }> = []) => {
      const home = join(tmpdir(), `akm-bench-quality-${process.pid}-${Math.random().toString(36).slice(2)}`)
      const runtime = runtimeFor(home)
      await runtime.runPromise(bundleAdd({ source, name: "stash", adapter, cwd: home, home }))
      for (const b of more) await runtime.runPromise(bundleAdd({ source: b.source, name: b.name, adapter: b.adapter, cwd: home, home }))
      await runtime.runPromise(indexBundles({}))
      return {
        runtime,
        refs: async (query: string, limit: number) => (await runtime.runPromise(search({ query, limit, track: false }))).hits.map((h) => h.ref),
        close: async () => {
          await runtime.dispose()
          rmSync(home, { recursive: true, force: true })
        }
      }
    }
    const result: Record<string, unknown> = {}
    if (hasSharedBench()) {
      const golden = fixtureCopy("curate-golden")
      const g = await mount(golden.dir, "akm")
      try {
        result.curateGoldenSearch = (await runCurateGolden(g.refs)).mean
        result.curateGoldenCurate = (await runCurateGolden(async (task, limit) =>
          (await g.runtime.runPromise(curate({ task, limit, track: false }))).items.map((i) => i.ref))).mean
      } finally {
        await g.close()
        golden.remove()
      }
      const baseline = fixtureCopy("ranking-baseline")
      const b = await mount(baseline.dir, "akm")
      try {
        const report = await runRankingBaseline(async (query, limit) => (await b.runtime.runPromise(search({ query, limit, track: false }))).hits)
        result.rankingBaseline = { passed: report.passed, total: report.total, failures: report.failures }
      } finally {
        await b.close()
        baseline.remove()
      }
    }
    const nl = naturalLanguageSet()
    if (existsSync(nl.library)) {
      const n = await mount(nl.library, "akm", nl.bundles.filter((b) => b.source !== nl.library))
      try {
        result.naturalLanguage = await nl.run(n.refs)
      } finally {
        await n.close()
      }
    }
    return result
  }
}

const [, , name, json] = process.argv
const step = name === undefined ? undefined : steps[name]
if (step === undefined) {
  process.stderr.write(`usage: driver <${Object.keys(steps).join("|")}> '{json options}'\n`)
  process.exit(2)
}
step(JSON.parse(json ?? "{}") as Record<string, unknown>).then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  }
)
