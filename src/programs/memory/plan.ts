import { coverageRetirement, deterministicCleanup, type CleanupPlan, type Retirement } from "../../domain/memory/Cleanup.js"
import type { MemoryPolicy } from "../../domain/MemoryPolicy.js"
import type { Tier } from "./tiers.js"

export interface ReductionPlan extends CleanupPlan {
  /** Items and bytes the tier keeps once the plan is applied. */
  readonly after: { readonly items: number; readonly bytes: number }
  readonly semantic: ReadonlyArray<Retirement>
}

/**
 * What one consolidation pass retires from a tier (spec 06 §8.2): every
 * deterministic cleanup first (no model, safe at any size); then, only with
 * `memory.semanticRetirement: true` and while above low water, sources whose
 * every claim a retained memory states (R-MEM-3, R-MEM-4). Pressure never
 * lowers a gate (R-MEM-1): what cannot be retired safely stays.
 */
export const planReduction = (tier: Tier, policy: MemoryPolicy, nowMs: number): ReductionPlan => {
  const cleanup = deterministicCleanup({ records: tier.active, nowMs, otherRefs: tier.refs })
  const gone = new Set(cleanup.retire.map((r) => r.record.ref))
  const left = tier.active.filter((r) => !gone.has(r.ref))
  const semantic = policy.semanticRetirement && left.length > policy.lowWaterItems ? coverageRetirement(left, policy.lowWaterItems) : []
  const semanticGone = new Set(semantic.map((r) => r.record.ref))
  const kept = left.filter((r) => !semanticGone.has(r.ref))
  return {
    retire: [...cleanup.retire, ...semantic],
    semantic,
    problems: cleanup.problems,
    after: { items: kept.length, bytes: kept.reduce((n, r) => n + r.bytes, 0) }
  }
}
