import { Context, type Effect } from "effect"
import type { WorkspaceUnavailable } from "../domain/Errors.js"
import type { DamagedTransaction } from "./Transaction.js"

/**
 * The transaction journals as `akm health` checks them: read-only, no lease,
 * and without the engine (whose layer needs the adapters, the validator and
 * the bundle files). Transaction.inspect answers the same question.
 */
export class TransactionJournals extends Context.Tag("akm/TransactionJournals")<TransactionJournals, {
  /** Unfinished transactions recovery refuses to act on, and unreadable finished records. */
  readonly inspect: Effect.Effect<ReadonlyArray<DamagedTransaction>, WorkspaceUnavailable>
}>() {}
