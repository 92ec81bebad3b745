import { Context, type Effect } from "effect"
import type { Redacted } from "../domain/Redaction.js"
import type { LearnedUtility } from "../domain/Utility.js"
import type { StateStoreError } from "./StateStore.js"

/** Who caused an event: a person, an agent, or an audit run (`AKM_EVENT_SOURCE`). Only user events teach utility. */
export type EventSource = "user" | "agent" | "audit"

export type FeedbackPolarity = "positive" | "negative"

/** search = one returned hit set; show = an item was read; select = read soon after a search returned it. */
export type UsageKind = "search" | "show" | "select"

/** Stored search queries keep at most this many characters after redaction (1 KiB). */
export const MAX_STORED_QUERY = 1024

export interface UsageEvent {
  readonly id: number
  readonly at: string
  readonly kind: UsageKind
  /** The item (show, select); absent for a search. */
  readonly ref?: string | undefined
  /** The query (search). */
  readonly query?: string | undefined
  /** The refs a search returned, in rank order. */
  readonly refs?: ReadonlyArray<string> | undefined
  readonly source: EventSource
}

export interface FeedbackInput {
  readonly ref: string
  readonly polarity: FeedbackPolarity
  /** Redacted by the caller, as the tags' values. */
  readonly reason?: Redacted | undefined
  readonly tags?: Readonly<Record<string, Redacted>> | undefined
  readonly source: EventSource
}

/** A stored feedback row (its reason and tags as they were stored: redacted). */
export interface FeedbackRecord extends Omit<FeedbackInput, "reason" | "tags"> {
  readonly reason?: string | undefined
  readonly tags?: Readonly<Record<string, string>> | undefined
  readonly id: number
  readonly at: string
}

/**
 * Usage and feedback in state.db (spec 04 §6): search/show events, feedback
 * rows and the utility per ref (EMA over user outcomes, in [0, 1]). Keyed by
 * ref, so learned state survives index rebuilds and bundle updates (R-FB-1).
 */
export class UsageLog extends Context.Tag("akm/UsageLog")<UsageLog, {
  /** The query is stored as given: redacted and capped by the caller (MAX_STORED_QUERY). */
  readonly recordSearch: (query: Redacted, refs: ReadonlyArray<string>, source: EventSource) => Effect.Effect<void, StateStoreError>
  /** Records a read of `ref`: `select` when a recent search by the same source returned it, else `show`. */
  readonly recordShow: (ref: string, source: EventSource) => Effect.Effect<"show" | "select", StateStoreError>
  readonly recordFeedback: (input: FeedbackInput) => Effect.Effect<FeedbackRecord, StateStoreError>
  /** Feedback rows, newest first. */
  readonly feedback: (options: { readonly ref?: string; readonly limit?: number }) => Effect.Effect<ReadonlyArray<FeedbackRecord>, StateStoreError>
  /** Usage events, newest first. */
  readonly events: (options: { readonly ref?: string; readonly kind?: UsageKind; readonly limit?: number }) => Effect.Effect<ReadonlyArray<UsageEvent>, StateStoreError>
  /**
   * Utility per ref in [0, 1] with the time of its last user outcome, so
   * decay survives an index.db rebuild (R-FB-1); refs without user outcomes
   * are absent.
   */
  readonly utilities: Effect.Effect<ReadonlyMap<string, LearnedUtility>, StateStoreError>
  readonly utility: (ref: string) => Effect.Effect<number | undefined, StateStoreError>
  /** The distinct queries of past searches that returned this ref, newest first (improve's holdout queries). */
  readonly queriesReturning: (ref: string, limit: number) => Effect.Effect<ReadonlyArray<string>, StateStoreError>
  /** Rekeys every usage, feedback and utility row of one bundle (R-REF-6). */
  readonly renameBundle: (from: string, to: string) => Effect.Effect<void, StateStoreError>
}>() {}
