import { Context, type Effect } from "effect"
import type { StateStoreError } from "./StateStore.js"

/** Who caused an event: a person, an agent, or an audit run (`AKM_EVENT_SOURCE`). Only user events teach utility. */
export type EventSource = "user" | "agent" | "audit"

export type FeedbackPolarity = "positive" | "negative"

export interface FeedbackInput {
  readonly ref: string
  readonly polarity: FeedbackPolarity
  readonly reason?: string | undefined
  readonly tags?: Readonly<Record<string, string>> | undefined
  readonly source: EventSource
}

export interface FeedbackRecord extends FeedbackInput {
  readonly id: number
  readonly at: string
}

/**
 * Usage and feedback in state.db (spec 04 §6): search/show events, feedback
 * rows and the utility per ref (EMA over user outcomes, in [0, 1]). Keyed by
 * ref, so learned state survives index rebuilds and bundle updates (R-FB-1).
 */
export class UsageLog extends Context.Tag("akm/UsageLog")<UsageLog, {
  readonly recordSearch: (query: string, refs: ReadonlyArray<string>, source: EventSource) => Effect.Effect<void, StateStoreError>
  readonly recordShow: (ref: string, source: EventSource) => Effect.Effect<void, StateStoreError>
  readonly recordFeedback: (input: FeedbackInput) => Effect.Effect<FeedbackRecord, StateStoreError>
  readonly feedback: (options: { readonly ref?: string; readonly limit?: number }) => Effect.Effect<ReadonlyArray<FeedbackRecord>, StateStoreError>
  /** Utility per ref in [0, 1]; refs without user outcomes are absent. */
  readonly utilities: Effect.Effect<ReadonlyMap<string, number>, StateStoreError>
}>() {}
