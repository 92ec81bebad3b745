import { afterAll, describe, expect, it } from "vitest"
import { crashLabs, runTrial, SPAN, type Damage, type Trial } from "../support/cliCrashTrials.js"

/**
 * Issue 13 item 4 (R-TX-10) at random points: 120 trials of the CLI crash
 * matrix (test/support/cliCrashTrials.ts), 30 per kind — `remember`, the
 * 120-file `proposal accept`, and each of them with its journal (or finished
 * record) damaged between the kill and recovery (truncated, garbage or a
 * forged temp name; resolved by `akm proposal recover --rollback|--forward`).
 * Each child dies at the n-th crash point it passes, n drawn from the seed
 * over a span a little wider than the run (so some complete). Every trial
 * must end byte-identical to the full pre- or post-state with the proposal's
 * status matching. A failing seed replays exactly.
 */
const PER_KIND = 30
const DAMAGES: ReadonlyArray<Damage> = ["truncate", "garbage", "forge"]

describe("CLI crash matrix at random points", () => {
  const labs = crashLabs()
  const all: Array<{ kind: string; seed: number; trial: Trial }> = []
  afterAll(() => {
    const table = new Map<string, number>()
    for (const { kind, trial } of all) {
      const point = trial.crash.crashedAt?.replace(/#\d+$/, "") ?? "(completed)"
      const key = `${kind} @ ${point}${trial.damaged === undefined ? "" : ` + ${trial.damaged} → ${trial.direction}`}: ${trial.state}/${trial.status ?? "no proposal"}`
      table.set(key, (table.get(key) ?? 0) + 1)
    }
    console.log(`${all.length} trials\n${[...table].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `${n} × ${k}`).join("\n")}`)
  })

  const kinds = [
    { kind: "remember", lab: () => labs.remember, damaged: false },
    { kind: "accept-120", lab: () => labs.accept, damaged: false },
    { kind: "remember+damage", lab: () => labs.remember, damaged: true },
    { kind: "accept-120+damage", lab: () => labs.accept, damaged: true }
  ]
  for (const [k, { kind, lab, damaged }] of kinds.entries()) {
    it(`${PER_KIND} random trials: ${kind}`, async () => {
      const problems: Array<string> = []
      for (let i = 0; i < PER_KIND; i++) {
        const seed = 1000 * (k + 1) + i
        const options = damaged ? { damage: DAMAGES[seed % DAMAGES.length]!, direction: seed % 2 === 0 ? "rollback" as const : "forward" as const } : {}
        const trial = await runTrial(lab(), labs.script, `random:${seed}/${SPAN[lab().phase]}`, options)
        all.push({ kind, seed, trial })
        if (trial.problem !== undefined) problems.push(`seed ${seed} (${trial.crash.crashedAt ?? "completed"}): ${trial.problem}`)
      }
      expect(problems).toEqual([])
    }, 600_000)
  }
})
