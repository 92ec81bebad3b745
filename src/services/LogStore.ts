import { Context, type Effect } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../domain/Errors.js"
import type { Redacted } from "../domain/Redaction.js"
import type { DatabaseStatus } from "./StateStore.js"

export type LogLevel = "debug" | "info" | "warn" | "error"

export interface LogLine {
  readonly id: number
  readonly at: string
  readonly run: string
  readonly level: LogLevel
  readonly message: string
}

/** logs.db: high-volume run/task/workflow log lines, purgeable (default retention 90 days). */
export class LogStore extends Context.Tag("akm/LogStore")<LogStore, {
  readonly init: Effect.Effect<DatabaseStatus, WorkspaceUnavailable | DatabaseTooNew>
  /** The message is redacted by the caller (a Redactor): log lines quote commands, paths and errors. */
  readonly append: (run: string, level: LogLevel, message: Redacted) => Effect.Effect<void, WorkspaceUnavailable | DatabaseTooNew>
  readonly lines: (run: string, options?: { readonly limit?: number }) => Effect.Effect<ReadonlyArray<LogLine>, WorkspaceUnavailable | DatabaseTooNew>
  /** Deletes lines older than `days`; returns how many. */
  readonly purge: (days: number) => Effect.Effect<number, WorkspaceUnavailable | DatabaseTooNew>
}>() {}
