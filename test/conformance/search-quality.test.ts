import { ManagedRuntime } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtureCopy, goldenQueries, hasSharedBench, runCurateGolden, runRankingBaseline, sharedRoot } from "../../bench/quality.js"
import { scoreRanking } from "../../src/domain/RankMetrics.js"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { search } from "../../src/programs/search.js"

/**
 * Search quality on the fixtures of ../shared/bench (spec 10 §2): the
 * curate-golden composite for `akm search` ≥ 0.95 and every ranking-baseline
 * expectation. Each fixture is copied without its judgments and mounted as one
 * bundle of the `akm` adapter in a workspace of its own, on the live layers.
 */

const mount = async (name: "curate-golden" | "ranking-baseline") => {
  const fixture = fixtureCopy(name)
  const home = mkdtempSync(join(tmpdir(), "akm-quality-"))
  const runtime = ManagedRuntime.make(makeAkmLive({ configDir: join(home, "config"), dataDir: join(home, "data"), cacheDir: join(home, "cache"), quiet: true }))
  await runtime.runPromise(bundleAdd({ source: fixture.dir, name: "stash", adapter: "akm", cwd: home, home }))
  await runtime.runPromise(indexBundles({}))
  return {
    search: async (query: string, limit: number) => (await runtime.runPromise(search({ query, limit, track: false }))).hits,
    searchRefs: async (query: string, limit: number) => (await runtime.runPromise(search({ query, limit, track: false }))).hits.map((h) => h.ref),
    close: async () => {
      await runtime.dispose()
      fixture.remove()
      rmSync(home, { recursive: true, force: true })
    }
  }
}

const present = hasSharedBench()

describe.skipIf(!present)("the rank metric reproduces the hand-built test vectors of curate-golden", () => {
  const baseline = present
    ? (JSON.parse(readFileSync(join(sharedRoot(), "bench", "baselines", "curate-golden.akm-0.9.0.json"), "utf8")) as {
      metricVectors: { vectors: ReadonlyArray<{ name: string; queryId: string; returned: ReadonlyArray<string>; ndcg: number; recall: number; mrr: number; noLeapfrog: number; leapfrogCount: number; score: number }> }
      runs: Record<string, { cases: Record<string, { returned: ReadonlyArray<string>; score: number; ndcg: number }> }>
    })
    : undefined
  const queries = present ? new Map(goldenQueries().map((q) => [q.id, q])) : new Map()
  const r4 = (x: number) => Math.round(x * 10_000) / 10_000

  it.each(baseline?.metricVectors.vectors ?? [])("$name", (v) => {
    const s = scoreRanking(v.returned, queries.get(v.queryId)!)
    expect({ ndcg: r4(s.ndcg), recall: r4(s.recall), mrr: r4(s.mrr), noLeapfrog: r4(s.noLeapfrog), leapfrogCount: s.leapfrogCount, score: r4(s.composite) })
      .toEqual({ ndcg: v.ndcg, recall: v.recall, mrr: v.mrr, noLeapfrog: v.noLeapfrog, leapfrogCount: v.leapfrogCount, score: v.score })
  })

  it("and every per-query result akm 0.9.0 recorded", () => {
    for (const run of Object.values(baseline?.runs ?? {})) {
      for (const [id, c] of Object.entries(run.cases)) {
        const s = scoreRanking(c.returned, queries.get(id)!)
        expect(r4(s.composite), id).toBe(c.score)
        expect(r4(s.ndcg), id).toBe(c.ndcg)
      }
    }
  })
})

describe.skipIf(!present)("curate-golden", () => {
  let golden: Awaited<ReturnType<typeof mount>>
  beforeAll(async () => {
    golden = await mount("curate-golden")
  })
  afterAll(async () => golden?.close())

  it("akm search scores a mean composite of at least 0.95", async () => {
    const report = await runCurateGolden(golden.searchRefs)
    for (const c of report.cases) console.log(`${c.id.padEnd(24)} ${c.composite.toFixed(3)}  ${c.returned.join(", ")}`)
    console.log(`mean composite ${report.mean.composite.toFixed(4)} nDCG ${report.mean.ndcg.toFixed(4)} recall ${report.mean.recall.toFixed(4)} MRR ${report.mean.mrr.toFixed(4)} noLeapfrog ${report.mean.noLeapfrog.toFixed(4)}`)
    expect(report.mean.composite).toBeGreaterThanOrEqual(0.95)
    expect(report.mean.noLeapfrog).toBe(1)
  })

  it("is deterministic: a second run returns the same order", async () => {
    const first = await runCurateGolden(golden.searchRefs)
    const second = await runCurateGolden(golden.searchRefs)
    expect(second.cases.map((c) => c.returned)).toEqual(first.cases.map((c) => c.returned))
  })
})

describe.skipIf(!present)("ranking-baseline", () => {
  let baseline: Awaited<ReturnType<typeof mount>>
  beforeAll(async () => {
    baseline = await mount("ranking-baseline")
  })
  afterAll(async () => baseline?.close())

  it("the fixture indexes as its 18 items", async () => {
    expect(await baseline.search("", 200)).toHaveLength(18)
  })

  it("every expectation holds", async () => {
    const report = await runRankingBaseline(baseline.search)
    for (const f of report.failures) console.log(`${f.id} "${f.query}": ${f.reason}`)
    console.log(`ranking-baseline: ${report.passed}/${report.total} pass`)
    expect(report.failures).toEqual([])
  })
})
