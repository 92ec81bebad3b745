import { Context, type Effect } from "effect"
import type { WorkspaceUnavailable } from "../domain/Errors.js"

/** Another writer changed the crontab between akm's read and its write: re-read and edit again, never clobber. */
export class CrontabChanged {
  readonly _tag = "CrontabChanged"
}

/**
 * The system scheduler's table, as text (spec 07 §3): the user's crontab
 * through the `crontab` program, or a plain file (`runtime.crontabFile`,
 * which tests and docs use). akm edits only its own marked block
 * (domain/CrontabBlock.ts); this service reads and compare-and-swaps the
 * whole text so every other byte stays as it was.
 */
export class Crontab extends Context.Tag("akm/Crontab")<Crontab, {
  /** Where the entries go, for messages: "the crontab file /x" or "your crontab (crontab -l)". */
  readonly where: Effect.Effect<string, WorkspaceUnavailable>
  /** The current text; "" when there is none yet. */
  readonly read: Effect.Effect<string, WorkspaceUnavailable>
  /** Writes `next` only while the table still reads `expected` (CrontabChanged otherwise); atomic. */
  readonly replace: (expected: string, next: string) => Effect.Effect<void, CrontabChanged | WorkspaceUnavailable>
}>() {}
