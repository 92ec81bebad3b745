import { describe, expect, it } from "vitest"
import { crashLabs, runTrial } from "../support/cliCrashTrials.js"

/**
 * Issue 13 item 4 (R-TX-10) in `npm test`: one trial per phase of the CLI
 * crash matrix — a `remember` killed mid-write, a 120-file `proposal accept`
 * killed halfway through its writes, and one killed with its journal damaged
 * before anything recovers. test/slow/cli-crash-random.test.ts runs the same
 * trials at random points.
 */
describe("CLI crash matrix (issue 13 item 4)", () => {
  const labs = crashLabs()

  it("remember killed at its write ends in the pre-state, its proposal not accepted", async () => {
    const trial = await runTrial(labs.remember, labs.script, "write")
    expect(trial.crash.crashedAt).toBe("write#1")
    expect(trial.problem).toBeUndefined()
    expect(trial.state).toBe("pre")
  }, 90_000)

  it("accept of 120 files killed at the 60th write ends in the full pre-state, still pending", async () => {
    const trial = await runTrial(labs.accept, labs.script, "write#60")
    expect(trial.crash.crashedAt).toBe("write#60")
    expect(trial.problem).toBeUndefined()
    expect([trial.state, trial.status]).toEqual(["pre", "pending"])
  }, 120_000)

  it("accept of 120 files killed at the 90th write with its journal truncated: writers refuse, recover --forward ends in the full post-state, accepted", async () => {
    const trial = await runTrial(labs.accept, labs.script, "write#90", { damage: "truncate", direction: "forward" })
    expect(trial.damaged).toBe("truncate")
    expect(trial.problem).toBeUndefined()
    expect([trial.state, trial.status]).toEqual(["post", "accepted"])
  }, 120_000)
})
