import { Context, type Effect } from "effect"
import type { ClaimDisposition } from "../domain/memory/Cleanup.js"
import type { StateStoreError } from "./StateStore.js"

/**
 * Lifecycle state of a memory that left its tier (spec 06 §8.3, seed 002
 * §10.3): retired or quarantined items are out of default retrieval and
 * recoverable from the archive until purged; restored ones are back.
 */
export type ArchiveState = "retired" | "quarantined" | "restored" | "purged"

export interface ArchiveEntry {
  readonly id: number
  readonly bundle: string
  readonly ref: string
  readonly path: string
  /** sha256 of the retired bytes: the blob's name in the archive. */
  readonly digest: string
  readonly bytes: number
  readonly state: ArchiveState
  /** duplicate, expired, superseded, invalid-derivative, covered, or what a person asked. */
  readonly reason: string
  readonly successors: ReadonlyArray<string>
  /** What became of every claim of the item (R-MEM-3). */
  readonly dispositions: ReadonlyArray<ClaimDisposition>
  /** The proposal that retired it; absent for an overlay on a read-only bundle. */
  readonly proposalId?: string | undefined
  readonly retiredAt: string
  /** Never purged while set. */
  readonly hold: boolean
  /** Retired by a workspace overlay (read-only bundle): the file is untouched, hidden while its bytes match `digest` (R-MEM-5). */
  readonly overlay: boolean
  readonly restoredAt?: string | undefined
  readonly restoreProposal?: string | undefined
  readonly purgedAt?: string | undefined
}

export type NewArchiveEntry = Omit<ArchiveEntry, "id" | "hold" | "restoredAt" | "restoreProposal" | "purgedAt">

export interface ArchiveFilter {
  readonly bundle?: string | undefined
  readonly ref?: string | undefined
  readonly states?: ReadonlyArray<ArchiveState> | undefined
}

/** The archive's metadata in state.db (migration 0011_memory); the bytes live in MemoryArchive. */
export class MemoryStore extends Context.Tag("akm/MemoryStore")<MemoryStore, {
  readonly record: (entries: ReadonlyArray<NewArchiveEntry>) => Effect.Effect<ReadonlyArray<ArchiveEntry>, StateStoreError>
  /** Oldest first. */
  readonly list: (filter: ArchiveFilter) => Effect.Effect<ReadonlyArray<ArchiveEntry>, StateStoreError>
  readonly setHold: (id: number, hold: boolean) => Effect.Effect<void, StateStoreError>
  readonly markRestored: (id: number, at: string, proposalId: string | undefined) => Effect.Effect<void, StateStoreError>
  readonly markPurged: (ids: ReadonlyArray<number>, at: string) => Effect.Effect<void, StateStoreError>
  /** Rekeys every row of one bundle to its new name (R-REF-6). */
  readonly renameBundle: (from: string, to: string) => Effect.Effect<void, StateStoreError>
}>() {}
