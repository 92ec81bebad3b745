import { Clock, Effect } from "effect"
import { purgeDecision } from "../../domain/memory/Purge.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { IndexStore } from "../../services/IndexStore.js"
import { MemoryArchive } from "../../services/MemoryArchive.js"
import { MemoryStore, type ArchiveEntry } from "../../services/MemoryStore.js"
import { recordAcceptedRetirements } from "./catchUp.js"
import { archiveUsage } from "./status.js"
import { OUT_OF_TIER, policyNow, readTier } from "./tiers.js"

export interface PurgeInput {
  readonly dryRun?: boolean | undefined
}

export interface PurgeLine {
  readonly ref: string
  readonly digest: string
  readonly bytes: number
  readonly retiredAt: string
  readonly reason: string
}

export interface PurgeResult {
  readonly dryRun: boolean
  /** Blobs deleted (or, with --dry-run, that would be): only eligible ones. */
  readonly purged: ReadonlyArray<PurgeLine>
  /** Kept for now: within the grace period, or held. */
  readonly kept: ReadonlyArray<PurgeLine>
  /** Never purged until a person acts: the successor is gone, or it regressed since retirement. */
  readonly refused: ReadonlyArray<PurgeLine>
  readonly archive: { readonly blobs: number; readonly bytes: number; readonly maxBytes: number }
  /** The archive stays above archiveMaxBytes after this purge: held, refused or in-grace blobs fill it. */
  readonly overMax: boolean
}

/** Evidence against a successor recorded after the retirement: a retrieval regression (spec 06 §8.5). */
const REGRESSION_KINDS = new Set(["negative-feedback", "failed-search"])

/**
 * `akm memory purge [--dry-run]` (spec 06 §8.5): deletes the archived blobs
 * past `retireGraceDays` (or `archiveRetentionDays`) whose successors are
 * still there, that are not held, and whose successors drew no negative
 * feedback or failed search since retirement. A retirement whose successor
 * was deleted is refused: its blob is the only copy of what it said.
 */
export const memoryPurge = Effect.fn("memory.purge")(function* (input: PurgeInput = {}) {
  const dryRun = input.dryRun === true
  const policy = yield* policyNow
  const nowMs = yield* Clock.currentTimeMillis
  yield* recordAcceptedRetirements()
  const store = yield* MemoryStore
  const archive = yield* MemoryArchive
  const evidence = yield* EvidenceStore
  const index = yield* IndexStore
  const rows = yield* store.list({ states: OUT_OF_TIER })
  const tierRefs = new Map<string, ReadonlySet<string> | undefined>()
  // A successor is looked for on disk in a bundle with a memory tier (the index may not have seen a deletion yet),
  // else in the index; an overlaid (hidden) item does not count.
  const exists = (ref: string) =>
    Effect.gen(function* () {
      const bundle = ref.slice(0, ref.indexOf("//"))
      if (!tierRefs.has(bundle)) {
        const tier = yield* readTier(bundle)
        tierRefs.set(bundle, tier === undefined ? undefined : new Set([...tier.refs].filter((r) => !tier.overlays.some((o) => o.ref === r))))
      }
      const refs = tierRefs.get(bundle)
      return refs !== undefined ? refs.has(ref) : (yield* index.resolve(ref)) !== undefined
    })
  const purged: Array<PurgeLine> = []
  const kept: Array<PurgeLine> = []
  const refused: Array<PurgeLine> = []
  const line = (row: ArchiveEntry, reason: string): PurgeLine => ({ ref: row.ref, digest: row.digest, bytes: row.bytes, retiredAt: row.retiredAt, reason })
  for (const row of rows) {
    let missing: string | undefined
    let regression: string | undefined
    if (!row.hold) {
      for (const successor of row.successors) if (!(yield* exists(successor))) missing = successor
      const regressed = row.successors.length === 0 ? [] : (yield* Effect.forEach(row.successors, (ref) => evidence.list({ ref, status: "open" }))).flat()
        .filter((e) => REGRESSION_KINDS.has(e.kind) && e.recordedAt > row.retiredAt)
      if (regressed.length > 0) regression = `its successor ${regressed[0]!.ref} drew ${regressed[0]!.kind} since the retirement; review it before purging`
    }
    const decision = purgeDecision(row, { nowMs, policy, missingSuccessor: missing, regression })
    const target = decision._tag === "purge" ? purged : decision._tag === "keep" ? kept : refused
    target.push(line(row, decision._tag === "refuse" && missing !== undefined ? `${decision.reason}; restore it with \`akm memory restore ${row.ref}\` or hold it` : decision.reason))
  }
  if (!dryRun && purged.length > 0) {
    const purgedIds = new Set(rows.filter((r) => purged.some((p) => p.ref === r.ref && p.digest === r.digest)).map((r) => r.id))
    // A blob shared with a row that stays (the same bytes retired twice) stays too.
    const stillNeeded = new Set(rows.filter((r) => !purgedIds.has(r.id)).map((r) => r.digest))
    for (const digest of new Set(purged.map((p) => p.digest))) if (!stillNeeded.has(digest)) yield* archive.remove(digest)
    yield* store.markPurged([...purgedIds], new Date(nowMs).toISOString())
  }
  const remaining = dryRun ? rows.filter((r) => !purged.some((p) => p.ref === r.ref && p.digest === r.digest)) : yield* store.list({ states: OUT_OF_TIER })
  const after = (yield* archiveUsage(remaining, archive)).usage
  return {
    dryRun,
    purged,
    kept,
    refused,
    archive: { blobs: after.blobs, bytes: after.bytes, maxBytes: policy.archiveMaxBytes },
    overMax: after.bytes > policy.archiveMaxBytes
  } satisfies PurgeResult as PurgeResult
})
