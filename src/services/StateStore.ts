import { Context, type Effect } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../domain/Errors.js"
import type { Redacted, RedactedFields } from "../domain/Redaction.js"

export type StateStoreError = WorkspaceUnavailable | DatabaseTooNew

export interface WorkspaceEvent {
  readonly id: number
  readonly at: string
  readonly kind: string
  readonly subject: string
  readonly data: unknown
}

export interface DatabaseStatus {
  readonly path: string
  readonly migrations: ReadonlyArray<string>
  readonly integrity: "ok" | string
}

/**
 * state.db: the durable truth — events, usage, feedback, proposals, evidence,
 * runs, archive metadata (spec 01 §4). Losing it is data loss, so every write
 * is a BEGIN IMMEDIATE transaction. Later capabilities add their own methods
 * and migrations here.
 */
export class StateStore extends Context.Tag("akm/StateStore")<StateStore, {
  /** Opens and migrates state.db (idempotent). */
  readonly init: Effect.Effect<DatabaseStatus, StateStoreError>
  /** Appends to the event log; returns the event's cursor. Subject and data are redacted first (programs/events.ts). */
  readonly appendEvent: (kind: string, subject: Redacted, data?: RedactedFields) => Effect.Effect<number, StateStoreError>
  /** Events after `cursor` (exclusive), oldest first. */
  readonly events: (options: { readonly after?: number; readonly limit?: number; readonly subject?: string }) => Effect.Effect<ReadonlyArray<WorkspaceEvent>, StateStoreError>
  /** Rewrites every ref-keyed row from one bundle name to another (R-REF-6). */
  readonly renameBundle: (from: string, to: string) => Effect.Effect<void, StateStoreError>
}>() {}
