import { Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtureCopy, hasSharedBench, runCurateGolden, runRankingBaseline } from "../../bench/quality.js"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { IndexStorePg } from "../../src/layers/postgres/IndexStorePg.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { curate } from "../../src/programs/curate.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { search } from "../../src/programs/search.js"
import { postgresSuites } from "./pgTestDb.js"
import { scratchClient } from "./scratchDatabase.js"

/**
 * Search quality on PostgreSQL, measured as on SQLite
 * (test/conformance/search-quality.test.ts, curate-quality.test.ts): the live
 * layers with the IndexStore swapped for IndexStorePg on a fresh database,
 * each fixture of ../shared/bench mounted as one `akm` bundle. Targets
 * (issue 27): curate-golden composite ≥ 0.95 for search and curate, every
 * ranking-baseline expectation.
 */
const mountOn = (url: string) => async (name: "curate-golden" | "ranking-baseline") => {
  const fixture = fixtureCopy(name)
  const home = mkdtempSync(join(tmpdir(), "akm-pg-quality-"))
  const live = makeAkmLive({ configDir: join(home, "config"), dataDir: join(home, "data"), cacheDir: join(home, "cache"), quiet: true })
  // Layer.merge: the right-hand IndexStore replaces index.db's for every program run here.
  const runtime = ManagedRuntime.make(Layer.merge(live, IndexStorePg.pipe(Layer.provide(scratchClient(url, `idx_${name.replace("-", "_")}`)))))
  await runtime.runPromise(bundleAdd({ source: fixture.dir, name: "stash", adapter: "akm", cwd: home, home }))
  await runtime.runPromise(indexBundles({}))
  return {
    runtime,
    search: async (query: string, limit: number) => (await runtime.runPromise(search({ query, limit, track: false }))).hits,
    searchRefs: async (query: string, limit: number) => (await runtime.runPromise(search({ query, limit, track: false }))).hits.map((h) => h.ref),
    close: async () => {
      await runtime.dispose()
      fixture.remove()
      rmSync(home, { recursive: true, force: true })
    }
  }
}

postgresSuites("search quality on PostgreSQL", (url) => {
  if (!hasSharedBench()) {
    it.skip("search quality on PostgreSQL: ../shared/bench is not present", () => {})
    return
  }
  const mount = mountOn(url)
  describe("curate-golden on PostgreSQL", () => {
    let golden: Awaited<ReturnType<typeof mount>>
    beforeAll(async () => {
      golden = await mount("curate-golden")
    }, 180_000)
    afterAll(async () => golden?.close())

    it("akm search scores a mean composite of at least 0.95", async () => {
      const report = await runCurateGolden(golden.searchRefs)
      for (const c of report.cases) console.log(`${c.id.padEnd(24)} ${c.composite.toFixed(3)}  ${c.returned.join(", ")}`)
      console.log(`postgres search: mean composite ${report.mean.composite.toFixed(4)} nDCG ${report.mean.ndcg.toFixed(4)} recall ${report.mean.recall.toFixed(4)} MRR ${report.mean.mrr.toFixed(4)} noLeapfrog ${report.mean.noLeapfrog.toFixed(4)}`)
      expect(report.mean.composite).toBeGreaterThanOrEqual(0.95)
      expect(report.mean.noLeapfrog).toBe(1)
    }, 120_000)

    it("akm curate scores a mean composite of at least 0.95 within its budgets", async () => {
      const budgets: Array<{ tokens: number; budget: number }> = []
      const report = await runCurateGolden(async (task, limit) => {
        const result = await golden.runtime.runPromise(curate({ task, limit, track: false }))
        budgets.push({ tokens: result.tokens, budget: result.budget })
        return result.items.map((item) => item.ref)
      })
      for (const c of report.cases) console.log(`${c.id.padEnd(24)} ${c.composite.toFixed(3)}  ${c.returned.join(", ")}`)
      console.log(`postgres curate: mean composite ${report.mean.composite.toFixed(4)} nDCG ${report.mean.ndcg.toFixed(4)} recall ${report.mean.recall.toFixed(4)} MRR ${report.mean.mrr.toFixed(4)} noLeapfrog ${report.mean.noLeapfrog.toFixed(4)}`)
      expect(report.mean.composite).toBeGreaterThanOrEqual(0.95)
      expect(report.mean.noLeapfrog).toBe(1)
      for (const b of budgets) expect(b.tokens).toBeLessThanOrEqual(b.budget)
    }, 120_000)
  })

  describe("ranking-baseline on PostgreSQL", () => {
    let baseline: Awaited<ReturnType<typeof mount>>
    beforeAll(async () => {
      baseline = await mount("ranking-baseline")
    }, 180_000)
    afterAll(async () => baseline?.close())

    it("the fixture indexes as its 18 items", async () => {
      expect(await baseline.search("", 200)).toHaveLength(18)
    })

    it("every expectation holds", async () => {
      const report = await runRankingBaseline(baseline.search)
      for (const f of report.failures) console.log(`${f.id} "${f.query}": ${f.reason}`)
      console.log(`postgres ranking-baseline: ${report.passed}/${report.total} pass`)
      expect(report.failures).toEqual([])
    }, 120_000)
  })
})
