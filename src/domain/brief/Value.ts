/**
 * What a brief item is worth (spec 08 §6, R-BRF-1): value ≈ rediscovery cost
 * × recurrence × blast radius. The two stated factors are per-kind constants
 * (this table); recurrence is the record's occurrence count (1 for anything
 * that is not counted). Changing a constant re-ranks every brief, so each
 * carries the reason for its number.
 */

export interface KindValue {
  /** Hours (roughly) a new session would spend finding this out again without it. */
  readonly rediscovery: number
  /** How much breaks when it is not known: 1 one file … 5 the whole system or money. */
  readonly blast: number
}

export const KIND_VALUES = {
  // What the system is: cheap to rediscover by reading, but everything reads wrong without it.
  identity: { rediscovery: 2, blast: 5 },
  // An active rule: written because breaking it already hurt once; scoped, but enforced nowhere else.
  rule: { rediscovery: 4, blast: 4 },
  // A recurring failure with its fix: hours of debugging each time, and it has recurred.
  failure: { rediscovery: 6, blast: 3 },
  // A business rule with a number (money, quotas, entitlements): not in the code's shape, wrong means wrong money.
  business: { rediscovery: 5, blast: 5 },
  // An open question: nobody knows yet, and it blocks work until answered.
  question: { rediscovery: 3, blast: 3 },
  // A decision (ADR or ledger): why X over Y; the code shows only the choice.
  decision: { rediscovery: 3, blast: 2 },
  // A generated map (stack, components): facts about the tree, extracted, cheap to regenerate.
  map: { rediscovery: 1, blast: 1 },
  // A surprise (behaviour that misled someone): medium to rediscover, local damage.
  surprise: { rediscovery: 3, blast: 1 },
  // A requirement or a drift record: context, read when working in that area.
  requirement: { rediscovery: 2, blast: 2 },
  drift: { rediscovery: 2, blast: 1 },
  // A failure seen once: kept, but one sighting is not a pattern yet.
  "failure-once": { rediscovery: 2, blast: 1 },
  // An answered question: the answer matters, but it has been routed into a file already.
  "question-answered": { rediscovery: 1, blast: 1 },
  // A superseded rule: kept for its chain (why the current rule looks the way it does).
  "rule-superseded": { rediscovery: 1, blast: 1 },
  // A dated memory note or lesson.
  memory: { rediscovery: 1, blast: 1 },
  // Any other prose document under docs/ or context/.
  doc: { rediscovery: 1, blast: 1 }
} as const satisfies Readonly<Record<string, KindValue>>

export type ItemKind = keyof typeof KIND_VALUES

/** The item's score: rediscovery × recurrence × blast (recurrence at least 1). */
export const valueOf = (kind: ItemKind, recurrence = 1): number => {
  const k = KIND_VALUES[kind]
  return k.rediscovery * Math.max(1, recurrence) * k.blast
}
