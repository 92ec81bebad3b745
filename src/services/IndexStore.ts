import { Context, type Effect } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../domain/Errors.js"
import type { IndexDocument, PersistSummary, SearchHit, SearchQuery } from "../domain/IndexDocument.js"
import type { DatabaseStatus } from "./StateStore.js"

export type IndexStoreError = WorkspaceUnavailable | DatabaseTooNew

/**
 * The one local index (index.db, disposable): written at index time, read at
 * query time with no adapter, network or file-system scan (R-SRCH-1). Every
 * layer passes test/services/IndexStore.contract.ts (R-ARCH-5).
 */
export class IndexStore extends Context.Tag("akm/IndexStore")<IndexStore, {
  readonly init: Effect.Effect<DatabaseStatus, IndexStoreError>
  /** Replaces a bundle's documents by diff: upsert by ref keeping row ids, delete vanished refs, one transaction (R-IDX-3). */
  readonly persist: (bundle: string, docs: ReadonlyArray<IndexDocument>) => Effect.Effect<PersistSummary, IndexStoreError>
  readonly resolve: (ref: string) => Effect.Effect<IndexDocument | undefined, IndexStoreError>
  /** Whether a concept exists (short-ref resolution, R-REF-3). */
  readonly has: (bundle: string, conceptId: string) => Effect.Effect<boolean, IndexStoreError>
  readonly search: (query: SearchQuery) => Effect.Effect<ReadonlyArray<SearchHit>, IndexStoreError>
  /** Item counts per bundle. */
  readonly counts: Effect.Effect<Readonly<Record<string, number>>, IndexStoreError>
  readonly removeBundle: (bundle: string) => Effect.Effect<number, IndexStoreError>
  readonly renameBundle: (from: string, to: string) => Effect.Effect<void, IndexStoreError>
}>() {}
