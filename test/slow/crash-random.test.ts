import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleChild, pointName } from "../support/txHarness.js"
import { crashTrial, postState, scenarios, trialProblem, type TrialOutcome } from "../support/txScenarios.js"

/**
 * R-TX-10 at random points (10-quality-bars §3): 60 trials over the three
 * crash-matrix operations, each child killed at the n-th crash point it
 * passes with n drawn from the trial's seed (AKM_TX_CRASH_AT=random:<seed>;
 * a run with fewer points completes). After recovery every tree is
 * byte-identical to the full pre- or post-state. A failing seed replays
 * exactly.
 */
const TRIALS = 60

describe("crash at random points", () => {
  let child: Awaited<ReturnType<typeof bundleChild>>
  const posts: Array<Record<string, string>> = []
  beforeAll(async () => {
    child = await bundleChild()
    for (const scenario of scenarios) posts.push(await postState(scenario))
  }, 120_000)
  afterAll(() => child.dispose())

  it(`${TRIALS} random-point trials end in the full pre- or post-state`, async () => {
    const outcomes: Array<{ seed: number; scenario: string; trial: TrialOutcome; problem: string | undefined }> = []
    for (let seed = 1; seed <= TRIALS; seed++) {
      const index = seed % scenarios.length
      const trial = await crashTrial(child.script, scenarios[index]!, posts[index]!, `random:${seed}`)
      outcomes.push({ seed, scenario: scenarios[index]!.name, trial, problem: trialProblem(trial) })
    }
    const table = new Map<string, { pre: number; post: number; completed: number }>()
    for (const { scenario, trial } of outcomes) {
      const key = `${scenario} @ ${trial.crashed.crashedAt === undefined ? "(no crash: completed)" : pointName(trial.crashed.crashedAt)}`
      const row = table.get(key) ?? { pre: 0, post: 0, completed: 0 }
      if (trial.crashed.crashedAt === undefined) row.completed++
      else if (trial.state === "pre") row.pre++
      else if (trial.state === "post") row.post++
      table.set(key, row)
    }
    console.log([...table].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, row]) => `${key}: pre ${row.pre}, post ${row.post}, completed ${row.completed}`).join("\n"))
    expect(outcomes.filter((o) => o.problem !== undefined).map((o) => `seed ${o.seed} (${o.scenario}, ${o.trial.crashed.crashedAt}): ${o.problem}`)).toEqual([])
    expect(outcomes.filter((o) => o.trial.crashed.crashedAt !== undefined).length).toBeGreaterThanOrEqual(TRIALS / 2)
  })
})
