import { Effect } from "effect"
import { UsageError } from "../../domain/Errors.js"
import { parseExpires } from "../../domain/memory/MemoryRecord.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { remember, type RememberInput } from "../remember.js"
import { INTAKE_ORIGIN, queuedIntake, stateOfTier } from "./status.js"
import { readTier } from "./tiers.js"

/** What a queued background capture keeps besides its text (the evidence row's `data`). */
export type QueuedCapture = {
  readonly tags?: ReadonlyArray<string> | undefined
  /** Resolved when queued: a duration counts from the capture, not from the write. */
  readonly expires?: string | undefined
  readonly title?: string | undefined
}

/**
 * The capture's tags, expiry and title for the queue row, redacted; undefined
 * when there are none. A bad `--expires` is refused as remember refuses it.
 */
export const queuedCaptureData = (input: RememberInput, nowMs: number, redact: (text: string) => string): Effect.Effect<QueuedCapture | undefined, UsageError> =>
  Effect.gen(function* () {
    let expires: string | undefined
    if (input.expires !== undefined) {
      const parsed = parseExpires(input.expires, nowMs)
      if ("reason" in parsed) return yield* new UsageError({ message: `--expires ${parsed.reason}`, hint: "e.g. --expires 30d, --expires 12h, --expires 2026-06-30" })
      expires = parsed.at
    }
    const tags = (input.tags ?? []).map((t) => redact(t.trim())).filter((t) => t !== "")
    const data: QueuedCapture = {
      ...(tags.length === 0 ? {} : { tags }),
      ...(expires === undefined ? {} : { expires }),
      ...(input.title === undefined || input.title.trim() === "" ? {} : { title: redact(input.title) })
    }
    return Object.keys(data).length === 0 ? undefined : data
  })

/** The row's data read back; anything not of the expected shape (a row from an older akm, a hand edit) is ignored. */
const captureOf = (data: Readonly<Record<string, unknown>> | undefined): QueuedCapture => {
  if (data === undefined) return {}
  const tags = Array.isArray(data["tags"]) ? data["tags"].filter((t): t is string => typeof t === "string") : []
  return {
    ...(tags.length === 0 ? {} : { tags }),
    ...(typeof data["expires"] === "string" ? { expires: data["expires"] } : {}),
    ...(typeof data["title"] === "string" ? { title: data["title"] } : {})
  }
}

export interface DrainResult {
  /** Queued memories written now, oldest first. */
  readonly written: ReadonlyArray<{ readonly bundle: string; readonly evidenceId: string; readonly ref?: string | undefined }>
  /** Still queued per bundle: the tier is blocked, or would pass high water with more. */
  readonly waiting: ReadonlyArray<{ readonly bundle: string; readonly count: number; readonly why: string }>
}

/**
 * Background intake queued while a tier was blocked (R-MEM-2) becomes memory
 * files once the tier is no longer blocked, oldest first, up to the high
 * water mark; what does not fit stays queued and is reported. Runs after
 * `akm memory consolidate` and before each background capture, so nothing
 * waits forever unseen (`akm memory status` counts what waits).
 */
export const drainIntake = Effect.fn("memory.drain")(function* (only?: string) {
  const rows = yield* queuedIntake
  const byBundle = new Map<string, Array<(typeof rows)[number]>>()
  // The store lists newest first; a stable sort of the reversed list keeps insertion order among equal times.
  for (const row of [...rows].reverse().sort((a, b) => (a.observedAt ?? a.recordedAt).localeCompare(b.observedAt ?? b.recordedAt))) {
    const bundle = row.origin!.slice(INTAKE_ORIGIN.length)
    if (only !== undefined && bundle !== only) continue
    byBundle.set(bundle, [...(byBundle.get(bundle) ?? []), row])
  }
  const evidence = yield* EvidenceStore
  const written: Array<DrainResult["written"][number]> = []
  const waiting: Array<DrainResult["waiting"][number]> = []
  for (const [bundle, queued] of byBundle) {
    const tier = yield* readTier(bundle)
    if (tier === undefined) {
      waiting.push({ bundle, count: queued.length, why: `bundle '${bundle}' has no memory tier any more (removed or renamed); the text stays in state.db` })
      continue
    }
    const { state, policy, size } = yield* stateOfTier(tier)
    if (state === "blocked") {
      waiting.push({ bundle, count: queued.length, why: "the tier is still blocked: run `akm memory consolidate`, merge memories by hand, or raise memory.lowWaterItems" })
      continue
    }
    let items = size.items
    let left = queued.length
    for (const row of queued) {
      if (items + 1 > policy.highWaterItems) break
      const made = yield* remember({ text: row.note, bundle, ...captureOf(row.data) })
      yield* evidence.mark([row.id], "used")
      written.push({ bundle, evidenceId: row.id, ...(made.ref === undefined ? {} : { ref: made.ref }) })
      items++
      left--
    }
    if (left > 0) waiting.push({ bundle, count: left, why: `writing more would pass high water (${policy.highWaterItems}); run \`akm memory consolidate\`` })
  }
  return { written, waiting } satisfies DrainResult as DrainResult
})

/** What waits in the intake queue per bundle, without writing anything (a dry run). */
export const queuedCounts = Effect.fn("memory.queued")(function* (only?: string) {
  const counts = new Map<string, number>()
  for (const row of yield* queuedIntake) {
    const bundle = row.origin!.slice(INTAKE_ORIGIN.length)
    if (only === undefined || bundle === only) counts.set(bundle, (counts.get(bundle) ?? 0) + 1)
  }
  return [...counts].map(([bundle, count]) => ({ bundle, count, why: "queued while the tier was blocked; a consolidation that unblocks it writes them" }))
})
