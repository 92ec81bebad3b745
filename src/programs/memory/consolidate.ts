import { Clock, Effect } from "effect"
import { fullyDisposed, type Retirement } from "../../domain/memory/Cleanup.js"
import type { TierState } from "../../domain/MemoryPolicy.js"
import { sha256Hex, type ProposalStatus } from "../../domain/Proposal.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { IndexStore } from "../../services/IndexStore.js"
import { MemoryArchive } from "../../services/MemoryArchive.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { indexBundles } from "../indexBundles.js"
import { proposeAndApply } from "../proposals/direct.js"
import { recordAcceptedRetirements } from "./catchUp.js"
import { drainIntake, queuedCounts, type DrainResult } from "./drain.js"
import { compactTier, entryOf, type ConsolidatedItem } from "./compact.js"
import { planReduction } from "./plan.js"
import { CONSOLIDATE_RECIPE, stateOfTier } from "./status.js"
import { policyNow, readTier, readTiers, sizeOf, type Tier } from "./tiers.js"

export interface ConsolidateInput {
  readonly bundle?: string | undefined
  readonly dryRun?: boolean | undefined
  /** Formalize related memories into this bundle (needs a generator; two-phase, R-TX-9). */
  readonly to?: string | undefined
}

export interface RetiredItem {
  readonly ref: string
  readonly path: string
  readonly reason: string
  readonly state: "retired" | "quarantined"
  readonly successors: ReadonlyArray<string>
  readonly digest: string
}

export interface TierConsolidation {
  readonly bundle: string
  readonly before: { readonly items: number; readonly bytes: number }
  readonly after: { readonly items: number; readonly bytes: number }
  readonly lowWaterItems: number
  readonly highWaterItems: number
  readonly state: TierState
  /** "proposal": the files were removed through a proposal; "overlay": a read-only bundle, hidden in this workspace. */
  readonly mode: "proposal" | "overlay"
  readonly retired: ReadonlyArray<RetiredItem>
  readonly proposals: ReadonlyArray<{ readonly id: string; readonly status: ProposalStatus; readonly changeClass: string; readonly hint?: string | undefined }>
  readonly problems: ReadonlyArray<{ readonly ref: string; readonly message: string }>
  /** Items a generator wrote from groups of related memories (compact, or formalize with --to). */
  readonly consolidated: ReadonlyArray<ConsolidatedItem>
}

export interface ConsolidateResult {
  readonly dryRun: boolean
  readonly tiers: ReadonlyArray<TierConsolidation>
  /** Background intake queued while a tier was blocked: written now that it is not, or still waiting and why. */
  readonly intake: DrainResult
}

/** The bytes of a retirement's file, when they still hash to what was planned (nothing else is archived or deleted). */
const bytesOf = (tier: Tier, r: Retirement) =>
  Effect.gen(function* () {
    const text = yield* Effect.either((yield* BundleFiles).readText(tier.info.root, r.record.path))
    if (text._tag === "Left" || sha256Hex(text.right) !== r.record.hash) return undefined
    return new TextEncoder().encode(text.right)
  })

const itemOf = (r: Retirement): RetiredItem => ({ ref: r.record.ref, path: r.record.path, reason: r.reason, state: r.state, successors: r.successors, digest: r.record.hash })

/**
 * One pass over one tier: archive every planned item's bytes first (so a
 * retirement is never a loss), then remove the files through proposals
 * (writable bundle; deterministic cleanup is mechanical, coverage retirement
 * semantic) or record a workspace overlay (read-only bundle, R-MEM-5).
 */
const cleanupTier = (tier: Tier, dryRun: boolean) =>
  Effect.gen(function* () {
    const policy = yield* policyNow
    const nowMs = yield* Clock.currentTimeMillis
    const at = new Date(nowMs).toISOString()
    const plan = planReduction(tier, policy, nowMs)
    const before = sizeOf(tier.active)
    const problems = plan.problems.map((p) => ({ ref: p.ref, message: p.problem.message }))
    const mode = tier.info.writable ? "proposal" as const : "overlay" as const
    const base = { bundle: tier.info.name, before, lowWaterItems: policy.lowWaterItems, highWaterItems: policy.highWaterItems, mode, problems }
    // An undispositioned claim blocks retirement (R-MEM-3).
    const retire = plan.retire.filter(fullyDisposed)
    if (dryRun || retire.length === 0) {
      const { state } = yield* stateOfTier(tier)
      return { ...base, after: dryRun ? plan.after : before, state, retired: retire.map(itemOf), proposals: [], consolidated: [], retiring: retire } satisfies TierConsolidation & { readonly retiring: ReadonlyArray<Retirement> }
    }
    const archive = yield* MemoryArchive
    const store = yield* MemoryStore
    const archived: Array<Retirement> = []
    for (const r of retire) {
      const bytes = yield* bytesOf(tier, r)
      if (bytes === undefined) continue
      yield* archive.put(bytes)
      archived.push(r)
    }
    const proposals: Array<TierConsolidation["proposals"][number]> = []
    const retired: Array<RetiredItem> = []
    if (mode === "overlay") {
      yield* store.record(archived.map((r) => entryOf(tier, r, at, true)))
      // The index must hold the current rows before the overlay marks them.
      yield* indexBundles({ bundle: tier.info.name })
      yield* (yield* IndexStore).retireOverlay(archived.map((r) => ({ ref: r.record.ref, hash: r.record.hash })))
      retired.push(...archived.map(itemOf))
    } else {
      const groups: ReadonlyArray<readonly ["mechanical" | "semantic", ReadonlyArray<Retirement>]> = [
        ["mechanical", archived.filter((r) => r.reason !== "covered")],
        ["semantic", archived.filter((r) => r.reason === "covered")]
      ]
      for (const [changeClass, group] of groups) {
        if (group.length === 0) continue
        const changes = tier.facet.render({ bundle: tier.info.name, retire: group.map((r) => ({ path: r.record.path, hash: r.record.hash })), write: [] })
        const reasons = [...new Set(group.map((r) => r.reason))].join(", ")
        const made = yield* proposeAndApply({
          title: `Consolidate memory: retire ${group.length} item${group.length === 1 ? "" : "s"} of ${tier.info.name} (${reasons})`,
          recipe: CONSOLIDATE_RECIPE,
          changeClass,
          changes,
          evidence: group.map((r) => ({ kind: r.reason === "duplicate" ? "duplicate" : r.reason === "expired" ? "expired" : "pressure", id: r.record.ref, hash: r.record.hash, ref: r.record.ref })),
          generator: "user",
          bundle: tier.info.name,
          root: tier.info.root
        })
        proposals.push({ id: made.id, status: made.status, changeClass, ...(made.hint === undefined ? {} : { hint: made.hint }) })
        // Recorded as retired only once the files are gone; a proposal waiting for review retires nothing yet.
        if (made.status === "accepted") {
          yield* store.record(group.map((r) => entryOf(tier, r, at, false, made.id)))
          retired.push(...group.map(itemOf))
        }
      }
    }
    const now = (yield* readTier(tier.info.name)) ?? tier
    const { size, state } = yield* stateOfTier(now)
    return { ...base, after: size, state, retired, proposals, consolidated: [], retiring: archived } satisfies TierConsolidation & { readonly retiring: ReadonlyArray<Retirement> }
  })

/**
 * One tier: deterministic cleanup (and coverage retirement) first; then,
 * with a generator, groups of related memories are compacted toward low
 * water, or formalized into `to` when it is given (spec 06 §8.4).
 */
const consolidateTier = (tier: Tier, dryRun: boolean, to: string | undefined) =>
  Effect.gen(function* () {
    const { retiring, ...cleaned } = yield* cleanupTier(tier, dryRun)
    const wanted = cleaned.after.items - cleaned.lowWaterItems
    if (to === undefined && wanted <= 0) return cleaned satisfies TierConsolidation as TierConsolidation
    const gone = new Set(retiring.map((r) => r.record.ref))
    const current = dryRun ? { ...tier, active: tier.active.filter((r) => !gone.has(r.ref)) } : (yield* readTier(tier.info.name)) ?? tier
    const compacted = yield* compactTier(current, { dryRun, to, wanted })
    if (compacted.items.length === 0) return cleaned satisfies TierConsolidation as TierConsolidation
    const now = dryRun ? current : (yield* readTier(tier.info.name)) ?? current
    const { size, state } = yield* stateOfTier(now)
    return {
      ...cleaned,
      after: dryRun ? cleaned.after : size,
      state: dryRun ? cleaned.state : state,
      retired: [...cleaned.retired, ...compacted.retired.map(itemOf)],
      proposals: [...cleaned.proposals, ...compacted.proposalIds.map((p) => ({ ...p, changeClass: "semantic" }))],
      consolidated: compacted.items
    } satisfies TierConsolidation as TierConsolidation
  })

/**
 * `akm memory consolidate [--bundle B] [--dry-run] [--to <bundle>]` (spec 06
 * §8.4, §8.6): deterministic cleanup of every memory tier, then (with
 * `memory.semanticRetirement: true`) retirement of sources whose every claim
 * a retained memory states, then (with a generator) compaction of related
 * memories toward low water. `--to` formalizes related memories into
 * another bundle instead, applied two-phase (R-TX-9).
 */
export const memoryConsolidate = Effect.fn("memory.consolidate")(function* (input: ConsolidateInput = {}) {
  const dryRun = input.dryRun === true
  if (!dryRun) yield* recordAcceptedRetirements()
  const tiers = yield* readTiers(input.bundle)
  const out: Array<TierConsolidation> = []
  for (const tier of tiers) out.push(yield* consolidateTier(tier, dryRun, input.to))
  // A pass that unblocked a tier lets its queued intake in (a dry run only counts it).
  const intake: DrainResult = dryRun ? { written: [], waiting: yield* queuedCounts(input.bundle) } : yield* drainIntake(input.bundle)
  return { dryRun, tiers: out, intake } satisfies ConsolidateResult as ConsolidateResult
})
