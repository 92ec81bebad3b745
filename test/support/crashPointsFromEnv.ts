import { Layer } from "effect"
import { CrashPoints } from "../../src/services/CrashPoints.js"

/**
 * The CrashPoints test layer (R-TX-10), provided only by the crash tests'
 * child process (test/support/txChild.ts) — the shipped CLI has no such code.
 * It reads the environment once, when the layer is built:
 *
 *   AKM_TX_CRASH_AT=after-journal     SIGKILL at the first point of that name
 *   AKM_TX_CRASH_AT=write#2           at its second occurrence
 *   AKM_TX_CRASH_AT=random:<seed>     at the n-th point passed, n drawn from the seed (1–16)
 *   AKM_TX_CRASH_AT=random:<seed>/<span>   the same with n in 1–span (long sets)
 *   AKM_TX_PAUSE_AT=<name>:<millis>   block at a point instead (race tests)
 *
 * The point's name goes to stderr first, so a test knows where it died. A
 * SIGKILL is exactly a power cut as far as the files go.
 */

/** How many points a random crash chooses among; a set with fewer points completes. */
const RANDOM_SPAN = 16

/** Mulberry32: a small seeded generator, so a failing random trial can be replayed by its seed. */
const seededIndex = (seed: number, span = RANDOM_SPAN): number => {
  let t = (seed + 0x6d2b79f5) | 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296
  return 1 + Math.floor(unit * span)
}

export const crashPointsFrom = (crash: string | undefined, paused: string | undefined): CrashPoints["Type"] => {
  // Counters live with this instance (one per child process), not in the module.
  let passed = 0
  const seen = new Map<string, number>()
  const matches = (spec: string, name: string, occurrence: number): boolean => {
    if (spec.startsWith("random:")) {
      const [seed, span] = spec.slice("random:".length).split("/")
      return passed === seededIndex(Number(seed), span === undefined ? undefined : Number(span))
    }
    const [wanted, nth] = spec.split("#")
    return wanted === name && occurrence === (nth === undefined ? 1 : Number(nth))
  }
  const pause = (spec: string, name: string): void => {
    const [wanted, millis] = spec.split(":")
    if (wanted === name) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(millis))
  }
  return CrashPoints.of({
    reach: (name) => {
      if (crash === undefined && paused === undefined) return
      passed++
      const occurrence = (seen.get(name) ?? 0) + 1
      seen.set(name, occurrence)
      if (paused !== undefined) pause(paused, name)
      if (crash !== undefined && matches(crash, name, occurrence)) {
        process.stderr.write(`akm-crash-point ${name}#${occurrence}\n`)
        process.kill(process.pid, "SIGKILL")
      }
    }
  })
}

export const CrashPointsFromEnv = Layer.sync(CrashPoints, () => crashPointsFrom(process.env.AKM_TX_CRASH_AT, process.env.AKM_TX_PAUSE_AT))
