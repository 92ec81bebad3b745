import { Context, type Effect } from "effect"
import type { Conflict } from "../domain/Errors.js"
import type { StateStoreError } from "./StateStore.js"

/** One table of a transfer: the rows the source held and the rows the target holds after the copy. */
export interface TransferredTable {
  readonly table: string
  readonly source: number
  readonly target: number
}

export interface TransferReport {
  /** The local state.db. */
  readonly from: string
  /** The PostgreSQL server as `postgres://host:port/db` (never its credentials). */
  readonly to: string
  readonly tables: ReadonlyArray<TransferredTable>
}

/**
 * `akm storage migrate` (docs/team.md): copies a workspace's state — events,
 * usage, feedback and utility, proposals with their bytes and outcomes,
 * evidence — from its SQLite state.db into the configured PostgreSQL
 * database, in one transaction that commits only when every table's count
 * matches. The target must hold no state yet.
 */
export class StateTransfer extends Context.Tag("akm/StateTransfer")<StateTransfer, {
  readonly toPostgres: Effect.Effect<TransferReport, StateStoreError | Conflict>
}>() {}
