import type { MemoryPolicy } from "../MemoryPolicy.js"

const DAY = 86_400_000

export interface PurgeCandidate {
  readonly retiredAt: string
  readonly hold: boolean
  readonly successors: ReadonlyArray<string>
}

export type PurgeDecision =
  | { readonly _tag: "purge"; readonly reason: string }
  | { readonly _tag: "keep"; readonly reason: string }
  | { readonly _tag: "refuse"; readonly reason: string }

/**
 * Whether an archived memory may be purged now (spec 06 §8.5, seed 002
 * §13.33): held never; within `retireGraceDays` (and `archiveRetentionDays`)
 * not yet; a successor that is gone refuses (the archive holds the only copy);
 * a successor that regressed since the retirement refuses too.
 */
export const purgeDecision = (
  row: PurgeCandidate,
  context: { readonly nowMs: number; readonly policy: MemoryPolicy; readonly missingSuccessor?: string | undefined; readonly regression?: string | undefined }
): PurgeDecision => {
  if (row.hold) return { _tag: "keep", reason: "held" }
  const retired = Date.parse(row.retiredAt)
  const age = context.nowMs - retired
  if (age < context.policy.retireGraceDays * DAY && age < context.policy.archiveRetentionDays * DAY) {
    return { _tag: "keep", reason: `in its grace period until ${new Date(retired + context.policy.retireGraceDays * DAY).toISOString()}` }
  }
  if (context.missingSuccessor !== undefined) return { _tag: "refuse", reason: `its successor ${context.missingSuccessor} was deleted: the archive holds the only copy` }
  if (context.regression !== undefined) return { _tag: "refuse", reason: context.regression }
  return { _tag: "purge", reason: "past its grace period, successor in place" }
}
