import { ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtureCopy, hasSharedBench, runCurateGolden } from "../../bench/quality.js"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { curate } from "../../src/programs/curate.js"
import { indexBundles } from "../../src/programs/indexBundles.js"

/**
 * `akm curate` on ../shared/bench/curate-golden (spec 10 §2): a mean composite
 * of at least 0.95 over the curated items in rank order, no banned item above
 * a relevant one, every result within its budget. The fixture is copied
 * without its judgments and mounted as one bundle of the `akm` adapter on the
 * live layers.
 */
describe.skipIf(!hasSharedBench())("curate on curate-golden", () => {
  const fixture = hasSharedBench() ? fixtureCopy("curate-golden") : undefined
  const home = mkdtempSync(join(tmpdir(), "akm-curate-quality-"))
  const runtime = ManagedRuntime.make(makeAkmLive({ configDir: join(home, "config"), dataDir: join(home, "data"), cacheDir: join(home, "cache"), quiet: true }))

  beforeAll(async () => {
    await runtime.runPromise(bundleAdd({ source: fixture!.dir, name: "stash", adapter: "akm", cwd: home, home }))
    await runtime.runPromise(indexBundles({}))
  })
  afterAll(async () => {
    await runtime.dispose()
    fixture?.remove()
    rmSync(home, { recursive: true, force: true })
  })

  it("scores a mean composite of at least 0.95, never leapfrogs, never exceeds the budget", async () => {
    const budgets: Array<{ tokens: number; budget: number }> = []
    const report = await runCurateGolden(async (task, limit) => {
      const result = await runtime.runPromise(curate({ task, limit, track: false }))
      budgets.push({ tokens: result.tokens, budget: result.budget })
      return result.items.map((item) => item.ref)
    })
    for (const c of report.cases) console.log(`${c.id.padEnd(24)} ${c.composite.toFixed(3)}  ${c.returned.join(", ")}`)
    console.log(`curate mean composite ${report.mean.composite.toFixed(4)} nDCG ${report.mean.ndcg.toFixed(4)} recall ${report.mean.recall.toFixed(4)} MRR ${report.mean.mrr.toFixed(4)} noLeapfrog ${report.mean.noLeapfrog.toFixed(4)}`)
    expect(report.mean.composite).toBeGreaterThanOrEqual(0.95)
    expect(report.mean.noLeapfrog).toBe(1)
    for (const b of budgets) expect(b.tokens).toBeLessThanOrEqual(b.budget)
  })

  it("small budgets still fit: cards only when nothing fits in full", async () => {
    for (const budget of [40, 200, 800]) {
      const result = await runtime.runPromise(curate({ task: "deploy docker compose services in my homelab", budget, track: false }))
      expect(result.tokens).toBeLessThanOrEqual(budget)
    }
  })

  it("is deterministic", async () => {
    const run = () => runtime.runPromise(curate({ task: "coordinate a multi package release across repos with changelog", track: false }))
    expect(await run()).toEqual(await run())
  })
})
