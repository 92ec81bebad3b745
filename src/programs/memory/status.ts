import { Clock, Effect } from "effect"
import { tierState, type TierState } from "../../domain/MemoryPolicy.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { MemoryArchive } from "../../services/MemoryArchive.js"
import { MemoryStore, type ArchiveEntry } from "../../services/MemoryStore.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { recordAcceptedRetirements } from "./catchUp.js"
import { planReduction } from "./plan.js"
import { CONSOLIDATE_RECIPE } from "./recipes.js"
import { OUT_OF_TIER, policyNow, readTiers, sizeOf, type Tier } from "./tiers.js"

export { CONSOLIDATE_RECIPE, FORMALIZE_RECIPE } from "./recipes.js"
/** Where queued background intake is recorded: evidence rows with this origin prefix (R-MEM-2). */
export const INTAKE_ORIGIN = "memory-intake:"

export interface TierStatus {
  readonly bundle: string
  readonly items: number
  readonly bytes: number
  readonly highWaterItems: number
  readonly lowWaterItems: number
  readonly highWaterBytes: number
  readonly state: TierState
}

export interface MemoryStatus {
  readonly tiers: ReadonlyArray<TierStatus>
  readonly archive: {
    readonly blobs: number
    readonly bytes: number
    /** Archived items whose blob is gone (deleted by hand): they cannot be restored. */
    readonly missing: ReadonlyArray<{ readonly ref: string; readonly digest: string }>
  }
  /** Background intake waiting in state.db while a tier is blocked. */
  readonly queued: number
  /** Memories left alone because something about them is wrong, with file and line. */
  readonly problems: ReadonlyArray<{ readonly ref: string; readonly message: string }>
}

/** A tier's state: ok, over-high (a pass reaches low water), reducing (a consolidation waits for review), blocked. */
export const stateOfTier = Effect.fn("memory.tierState")(function* (tier: Tier) {
  const policy = yield* policyNow
  const now = yield* Clock.currentTimeMillis
  const size = sizeOf(tier.active)
  const plan = planReduction(tier, policy, now)
  const pending = (yield* (yield* ProposalStore).list({ status: "pending", recipe: CONSOLIDATE_RECIPE, bundle: tier.info.name, limit: 1 })).length > 0
  return { size, plan, policy, state: tierState(policy, size, plan.after, pending) }
})

/** The memory archive's size: the distinct blobs of items out of their tier that are present; the absent ones listed. */
export const archiveUsage = (rows: ReadonlyArray<ArchiveEntry>, archive: MemoryArchive["Type"]) =>
  Effect.gen(function* () {
    const sizes = new Map<string, number>()
    const missing: Array<{ ref: string; digest: string }> = []
    for (const row of rows) {
      if (sizes.has(row.digest)) continue
      if (yield* archive.exists(row.digest)) sizes.set(row.digest, row.bytes)
      else missing.push({ ref: row.ref, digest: row.digest })
    }
    return { usage: { blobs: sizes.size, bytes: [...sizes.values()].reduce((n, b) => n + b, 0) }, missing }
  })

/** Evidence rows queued by background intake, still open. */
export const queuedIntake = Effect.map(
  Effect.flatMap(EvidenceStore, (store) => store.list({ source: "memory", status: "open", limit: 100_000 })),
  (rows) => rows.filter((r) => r.origin?.startsWith(INTAKE_ORIGIN) === true)
)

/**
 * `akm memory status` (spec 06 §8.2): each memory tier against its water
 * marks, the archive's size, what waits in the intake queue.
 */
export const memoryStatus = Effect.fn("memory.status")(function* (input: { readonly bundle?: string | undefined } = {}) {
  yield* recordAcceptedRetirements()
  const tiers = yield* readTiers(input.bundle)
  const out: Array<TierStatus> = []
  const problems: Array<MemoryStatus["problems"][number]> = []
  for (const tier of tiers) {
    const { size, plan, policy, state } = yield* stateOfTier(tier)
    out.push({ bundle: tier.info.name, items: size.items, bytes: size.bytes, highWaterItems: policy.highWaterItems, lowWaterItems: policy.lowWaterItems, highWaterBytes: policy.highWaterBytes, state })
    for (const p of plan.problems) problems.push({ ref: p.ref, message: p.problem.message })
  }
  const archive = yield* MemoryArchive
  const rows = yield* (yield* MemoryStore).list({ states: OUT_OF_TIER })
  const { usage, missing } = yield* archiveUsage(rows, archive)
  return {
    tiers: out,
    archive: { blobs: usage.blobs, bytes: usage.bytes, missing },
    queued: (yield* queuedIntake).length,
    problems
  } satisfies MemoryStatus as MemoryStatus
})
