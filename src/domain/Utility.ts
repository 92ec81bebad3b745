/**
 * Utility of an item (spec 04 §6): an exponential moving average over what
 * users did with it, bounded in [0, 1]. 0.5 is "no evidence"; search turns it
 * into a bounded multiplier (the ranking table). Pure arithmetic, recomputed
 * from the outcome history on every write.
 */

export type OutcomeKind = "show" | "select" | "positive" | "negative"

export interface Outcome {
  readonly kind: OutcomeKind
  /** Milliseconds since the epoch. */
  readonly atMs: number
}

/** A ref's learned value and when it was last recomputed (ISO time): decay counts from `at`. */
export interface LearnedUtility {
  readonly value: number
  readonly at: string
}

/** No evidence either way. */
export const UTILITY_PRIOR = 0.5

/**
 * Where each outcome pulls the value and how hard. Explicit feedback is the
 * strongest signal (one negative takes a fresh item to 0.25); opening an item
 * right after a search returned it (select) says more than opening it at all
 * (show), and neither alone can push an item past a single positive vote.
 */
export const OUTCOME_WEIGHTS: Readonly<Record<OutcomeKind, { readonly target: number; readonly rate: number }>> = {
  positive: { target: 1, rate: 0.5 },
  negative: { target: 0, rate: 0.5 },
  select: { target: 0.8, rate: 0.2 },
  show: { target: 0.7, rate: 0.1 }
}

/** Evidence fades: after this long without outcomes, half the distance to the prior is gone. */
export const UTILITY_HALF_LIFE_MS = 30 * 24 * 60 * 60 * 1000

/** Only this many latest outcomes are replayed; older ones have decayed to noise anyway. */
export const UTILITY_HISTORY = 200

const clamp = (value: number): number => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : UTILITY_PRIOR)

/** Pulls `value` back toward the prior for the time that passed. */
export const decayed = (value: number, elapsedMs: number): number =>
  elapsedMs <= 0 ? value : UTILITY_PRIOR + (value - UTILITY_PRIOR) * Math.pow(0.5, elapsedMs / UTILITY_HALF_LIFE_MS)

/** The utility after replaying `outcomes` (oldest first) from the prior; undefined when there are none. */
export const utilityOf = (outcomes: ReadonlyArray<Outcome>): number | undefined => {
  if (outcomes.length === 0) return undefined
  let value = UTILITY_PRIOR
  let last = outcomes[0]!.atMs
  for (const outcome of outcomes) {
    value = decayed(value, outcome.atMs - last)
    last = Math.max(last, outcome.atMs)
    const { target, rate } = OUTCOME_WEIGHTS[outcome.kind]
    value = clamp(value + rate * (target - value))
  }
  return clamp(value)
}
