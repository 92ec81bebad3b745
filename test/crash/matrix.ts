import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleChild } from "../support/txHarness.js"
import { crashTrial, MATRIX_PHASES, postState, scenarios, trialProblem } from "../support/txScenarios.js"

/**
 * R-TX-10, one trial per crash point: a real child process applies the
 * scenario through the engine and SIGKILLs itself at the point; a fresh child
 * runs recovery; the tree must then be byte-identical to the full pre-state
 * (crash before the commit mark) or the full post-state (at or after it),
 * with no journal, no temp file, no lease left and state.db intact.
 */
export const crashMatrix = (index: number) => {
  const scenario = scenarios[index]!
  describe(`crash matrix: ${scenario.name}`, () => {
    let child: Awaited<ReturnType<typeof bundleChild>>
    let post: Record<string, string>
    beforeAll(async () => {
      child = await bundleChild()
      post = await postState(scenario)
    }, 60_000)
    afterAll(() => child.dispose())

    for (const point of scenario.points.filter((p) => MATRIX_PHASES.has(p))) {
      it(`SIGKILL at ${point}`, async () => {
        const trial = await crashTrial(child.script, scenario, post, point)
        expect(trial.crashed.crashedAt).toBe(point.includes("#") ? point : `${point}#1`)
        expect(trialProblem(trial)).toBeUndefined()
      })
    }
  })
}
