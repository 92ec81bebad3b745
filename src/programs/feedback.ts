import { Effect } from "effect"
import { UsageError } from "../domain/Errors.js"
import { toStored } from "../domain/Ref.js"
import { EvidenceStore } from "../services/EvidenceStore.js"
import { Redactor } from "../services/Redactor.js"
import { feedbackEvidence } from "./evidence/fromFeedback.js"
import { recordEvent } from "./events.js"
import { UsageLog, type EventSource, type FeedbackPolarity } from "../services/UsageLog.js"
import { copyUtility, resolveTarget } from "./show.js"
import { shellCommand } from "../domain/ShellQuote.js"

export interface FeedbackInput {
  readonly ref: string
  readonly polarity: FeedbackPolarity
  /** Required for negative feedback: it becomes corrective evidence for improve. */
  readonly reason?: string | undefined
  /** `key=value` pairs. */
  readonly tags?: ReadonlyArray<string> | undefined
  readonly source?: EventSource | undefined
}

export interface FeedbackResult {
  readonly id: number
  readonly at: string
  /** Fully qualified; feedback on a file of an item (a skill's script) counts for the item. */
  readonly ref: string
  readonly polarity: FeedbackPolarity
  readonly reason: string | null
  readonly tags: Readonly<Record<string, string>>
  readonly source: EventSource
  /** The ref's utility after this feedback; null when only agent or audit outcomes exist (they teach nothing). */
  readonly utility: number | null
}

/** `k=v` pairs into a record; the last value of a repeated key wins. */
export const parseTags = (pairs: ReadonlyArray<string>): Record<string, string> | UsageError => {
  const tags: Record<string, string> = {}
  for (const pair of pairs) {
    const at = pair.indexOf("=")
    const key = at === -1 ? "" : pair.slice(0, at).trim()
    if (key === "") return new UsageError({ message: `--tag '${pair}' is not key=value`, hint: "e.g. --tag area=auth" })
    tags[key] = pair.slice(at + 1).trim()
  }
  return tags
}

/**
 * `akm feedback` (spec 04 §6): a feedback row and an event in state.db, the
 * ref's utility recomputed there and copied into index.db's ranking features,
 * so search reads it without touching state.db (R-FB-1).
 */
export const feedback = Effect.fn("feedback")(function* (input: FeedbackInput) {
  const reason = input.reason?.trim()
  if (input.polarity === "negative" && (reason === undefined || reason === "")) {
    return yield* new UsageError({
      message: "negative feedback needs a reason",
      hint: `say what was wrong, e.g. ${shellCommand("akm feedback", input.ref)} --negative --reason "steps are outdated"`
    })
  }
  const tags = parseTags(input.tags ?? [])
  if (tags instanceof UsageError) return yield* tags
  const target = yield* resolveTarget(input.ref)
  const ref = target.resourceOf ?? toStored(target.ref)
  const source = input.source ?? "user"
  const usage = yield* UsageLog
  // Reasons and tags are free text: stored only redacted (R-RED-1).
  const redact = yield* (yield* Redactor).snapshot
  const record = yield* usage.recordFeedback({
    ref,
    polarity: input.polarity,
    reason: reason === undefined || reason === "" ? undefined : redact(reason),
    tags: Object.fromEntries(Object.entries(tags).map(([key, value]) => [key, redact(value)])),
    source
  })
  // A negative feedback with a reason is corrective evidence for improve from now on (spec 06 §1); `akm evidence collect` backfills older rows.
  const evidence = feedbackEvidence(record)
  if (evidence !== undefined) yield* (yield* EvidenceStore).add([evidence])
  const stored = record.tags ?? {}
  yield* recordEvent("feedback", ref, { polarity: record.polarity, ...(record.reason === undefined ? {} : { reason: record.reason }), ...(Object.keys(stored).length === 0 ? {} : { tags: stored }), source })
  const utility = yield* copyUtility(ref)
  return {
    id: record.id,
    at: record.at,
    ref,
    polarity: record.polarity,
    reason: record.reason ?? null,
    tags: stored,
    source,
    utility: utility === undefined ? null : Math.round(utility * 1000) / 1000
  } satisfies FeedbackResult
})
