import { Effect } from "effect"
import type { EvidenceInput } from "../../domain/Evidence.js"
import { UsageLog, type FeedbackRecord } from "../../services/UsageLog.js"

/** How many feedback rows one collection reads, newest first. */
const FEEDBACK_WINDOW = 10_000

/**
 * A negative feedback with a reason is `negative-feedback` evidence about its
 * ref (spec 06 §1). Independence (R-IMP-2): one source on one day is one
 * observation, so an agent repeating a complaint ten times in a session
 * counts once; a person and an agent, or two days, count twice.
 */
export const feedbackEvidence = (record: FeedbackRecord): EvidenceInput | undefined =>
  record.polarity !== "negative" || record.reason === undefined || record.reason.trim() === ""
    ? undefined
    : {
      kind: "negative-feedback",
      source: "feedback",
      ref: record.ref,
      note: record.reason,
      independenceKey: `feedback/${record.source}/${record.at.slice(0, 10)}`,
      origin: `feedback:${record.id}`,
      observedAt: record.at
    }

export const evidenceFromFeedback = Effect.gen(function* () {
  const rows = yield* (yield* UsageLog).feedback({ limit: FEEDBACK_WINDOW })
  return rows.flatMap((row) => {
    const input = feedbackEvidence(row)
    return input === undefined ? [] : [input]
  })
})
