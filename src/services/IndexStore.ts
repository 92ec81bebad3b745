import { Context, type Effect } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../domain/Errors.js"
import type { IndexDocument, PersistSummary } from "../domain/IndexDocument.js"
import type { ItemInputs } from "../domain/ItemProjection.js"
import type { QueryGroup } from "../domain/Query.js"
import type { ItemFilters } from "../domain/Search.js"
import type { LearnedUtility } from "../domain/Utility.js"
import type { DatabaseStatus } from "./StateStore.js"

export type IndexStoreError = WorkspaceUnavailable | DatabaseTooNew

export interface DiagnosticCounts {
  readonly error: number
  readonly warning: number
  readonly info: number
}

/** One scanned file as the manifest remembers it (R-IDX-2). */
export interface ManifestFile {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
  /** sha256 of the bytes when the file is an item on its own; multi-file items hash as a whole (IndexDocument.hash). */
  readonly hash?: string | undefined
}

/** What the last index run of one bundle saw: the basis of incremental reindexing. */
export interface BundleManifest {
  readonly bundle: string
  readonly adapter: { readonly id: string; readonly version: string }
  readonly indexedAt: string
  readonly files: ReadonlyArray<ManifestFile>
  /** The root the rows were read from (an update or rename moves it: then every item is read again). */
  readonly root?: string | undefined
  /** Whether the bundle was writable when indexed (a hit's `editable` when config.yaml no longer names the bundle). */
  readonly writable?: boolean | undefined
  /** Findings of the scan that produced the rows, by severity (for `akm health`). */
  readonly diagnostics?: DiagnosticCounts | undefined
  /**
   * The walk's share of `diagnostics` (files it skipped or could not read),
   * when the store recorded it for this run: a write's refresh counts the
   * rest by the validation's difference (decision 0061). Absent from stores
   * that do not keep it, and from runs written before.
   */
  readonly walkDiagnostics?: DiagnosticCounts | undefined
  /** Set when the last run could not read the bundle: its rows are from an earlier run (R-IDX-3). */
  readonly staleReason?: string | undefined
}

/** What a persist records besides the documents (the bundle and stale mark are the store's). */
export type ManifestInput = Omit<BundleManifest, "bundle" | "staleReason">

/** Where a streamed persist's documents go, batch by batch, inside its one transaction. */
export interface DocumentSink {
  /**
   * Documents of the persisted bundle; a ref already written in this persist
   * is skipped. `inputs`, when given, is parallel to `docs`: what a later scan
   * needs to keep each item without reading it (R-IDX-2).
   */
  readonly write: (docs: ReadonlyArray<IndexDocument>, inputs?: ReadonlyArray<ItemInputs>) => Effect.Effect<void, IndexStoreError>
  /** Refs whose stored rows stay as they are (the scan reused them unread); they count as unchanged, not vanished. */
  readonly keep: (refs: ReadonlyArray<string>) => Effect.Effect<void, IndexStoreError>
}

/**
 * How a streamed persist's producer ends: `Commit` deletes the refs it did not
 * write and records the manifest; `Discard` writes nothing at all and keeps
 * the old rows (a scan that failed as a whole, R-IDX-3).
 */
export type PersistEnd<A> =
  | { readonly _tag: "Commit"; readonly value: A; readonly manifest?: ManifestInput | undefined }
  | { readonly _tag: "Discard"; readonly value: A }

export interface PersistStreamed<A> {
  /** What was (or, dry-run, would be) written; undefined when the producer discarded. */
  readonly summary: PersistSummary | undefined
  readonly value: A
}

/** An item as search sees it: the first-class query-time columns, never parsed out of JSON. */
export interface IndexedItem {
  readonly ref: string
  readonly bundle: string
  readonly conceptId: string
  readonly adapter: string
  readonly type?: string | undefined
  readonly name: string
  readonly description?: string | undefined
  readonly tags: ReadonlyArray<string>
  readonly aliases: ReadonlyArray<string>
  readonly hints: ReadonlyArray<string>
  readonly quality?: string | undefined
  readonly beliefState?: string | undefined
  /** Fully qualified. */
  readonly supersededBy?: string | undefined
  readonly status?: string | undefined
  readonly staleAfter?: string | undefined
  readonly pinned: boolean
  /** The bundle is writable: as config.yaml says at search time (index/store.ts), else as when it was indexed. */
  readonly editable: boolean
  readonly path: string
  readonly hash: string
  readonly bytes: number
  /** The exact token count cached for `hash`, when one is. */
  readonly tokens?: number | undefined
  /** The ref's utility copied from state.db and when state.db learned it (decay counts from then). */
  readonly utility?: LearnedUtility | undefined
  /** Lexical diversity measured at index time (domain/TextSignals.ts); absent for rows indexed before it was. */
  readonly diversity?: number | undefined
}

/**
 * How candidates are matched: words (OR over the groups; `prefix` turns tokens
 * of 3+ characters into `tok*`), or substrings through the trigram table
 * (segments shorter than 3 characters use LIKE).
 */
export type CandidateMatch =
  | { readonly _tag: "Words"; readonly groups: ReadonlyArray<QueryGroup>; readonly prefix: boolean }
  | { readonly _tag: "Substring"; readonly segments: ReadonlyArray<string> }

export interface CandidateQuery {
  readonly match: CandidateMatch
  readonly filters: ItemFilters
  /** The best `limit` by lexical score are returned. */
  readonly limit: number
}

export interface Candidate {
  readonly item: IndexedItem
  /** Lexical relevance, higher is better (bm25 with the field weights, sign flipped). */
  readonly lexical: number
  /** Per query group (Words) or segment (Substring): whether the item contains it. */
  readonly matched: ReadonlyArray<boolean>
}

export interface CandidateSet {
  readonly candidates: ReadonlyArray<Candidate>
  /**
   * Replaced items (a successor in the index) among the best lexical matches
   * that the `current` belief filter left out: search ranks their successors
   * in their place (issue 25, spec 04 §6). A layer may leave this out.
   */
  readonly replaced?: ReadonlyArray<Candidate> | undefined
  /** Every item that matched and passed the filters. */
  readonly total: number
  readonly documentCount: number
  /** Per group or segment: in how many items it occurs (for IDF weights). */
  readonly documentFrequency: ReadonlyArray<number>
}

export interface BrowseQuery {
  readonly bundle?: string | undefined
  /** Concept-id prefix; "" for everything. */
  readonly prefix: string
  readonly filters: ItemFilters
  readonly limit: number
}

/** A bundle's items of one type: how many and their bytes together (a memory tier's size, spec 06 §8.2). */
export interface TypeSize {
  readonly bundle: string
  readonly items: number
  readonly bytes: number
}

export interface BundleIndexState {
  readonly bundle: string
  readonly items: number
  readonly adapter?: { readonly id: string; readonly version: string } | undefined
  readonly indexedAt?: string | undefined
  readonly writable?: boolean | undefined
  readonly diagnostics?: DiagnosticCounts | undefined
  readonly staleReason?: string | undefined
}

/**
 * The one local index (index.db, disposable): written at index time, read at
 * query time with no adapter, network or file-system scan (R-SRCH-1). Every
 * layer passes test/services/IndexStore.contract.ts (R-ARCH-5).
 */
export class IndexStore extends Context.Tag("akm/IndexStore")<IndexStore, {
  readonly init: Effect.Effect<DatabaseStatus, IndexStoreError>
  /**
   * Replaces a bundle's documents by diff in one write transaction (R-IDX-3):
   * upsert by ref keeping row ids, delete only vanished refs (with their
   * full-text and link rows), and record the manifest, clearing any stale mark.
   */
  readonly persist: (bundle: string, docs: ReadonlyArray<IndexDocument>, manifest?: ManifestInput) => Effect.Effect<PersistSummary, IndexStoreError>
  /**
   * `persist` with the documents streamed: `produce` hands them to the sink in
   * batches while it runs, all inside the bundle's one write transaction, so
   * memory stays bounded by a batch however large the bundle (spec 10 §2).
   * A failure of `produce` or of a write rolls the whole bundle back. With
   * `dryRun` nothing is written and the summary says what would change.
   */
  readonly persistStreamed: <A, E, R>(
    bundle: string,
    produce: (sink: DocumentSink) => Effect.Effect<PersistEnd<A>, E, R>,
    options?: { readonly dryRun?: boolean | undefined }
  ) => Effect.Effect<PersistStreamed<A>, E | IndexStoreError, R>
  /** What `persist` would do, without writing (`akm index --dry-run`). */
  readonly diff: (bundle: string, docs: ReadonlyArray<IndexDocument>) => Effect.Effect<PersistSummary, IndexStoreError>
  readonly manifest: (bundle: string) => Effect.Effect<BundleManifest | undefined, IndexStoreError>
  /** The stored inputs of a bundle's items, by ref: what an incremental scan may reuse (R-IDX-2). Items stored without inputs are absent. */
  readonly itemInputs: (bundle: string) => Effect.Effect<ReadonlyMap<string, ItemInputs>, IndexStoreError>
  /** Keeps a bundle's rows but marks them stale: its root is missing or its scan failed. */
  readonly markStale: (bundle: string, reason: string) => Effect.Effect<void, IndexStoreError>
  /** Every bundle with rows or a manifest, by name. */
  readonly bundles: Effect.Effect<ReadonlyArray<BundleIndexState>, IndexStoreError>
  /** When a complete index run last finished; undefined for a new (or deleted) index.db (R-WS-2). */
  readonly lastIndexed: Effect.Effect<string | undefined, IndexStoreError>
  readonly recordIndexRun: (at: string) => Effect.Effect<void, IndexStoreError>
  readonly resolve: (ref: string) => Effect.Effect<IndexDocument | undefined, IndexStoreError>
  /** Whether a concept exists (short-ref resolution, R-REF-3). */
  readonly has: (bundle: string, conceptId: string) => Effect.Effect<boolean, IndexStoreError>
  /** Lexical candidates for ranking, best first, filters applied after the match (spec 04 §3). */
  readonly candidates: (query: CandidateQuery) => Effect.Effect<CandidateSet, IndexStoreError>
  /** The items with these refs that pass the filters, in the order given (unknown refs are skipped). */
  readonly items: (refs: ReadonlyArray<string>, filters: ItemFilters) => Effect.Effect<ReadonlyArray<IndexedItem>, IndexStoreError>
  /**
   * The indexed text (content) of these items, at most `chars` characters
   * each, by ref: what a search hit's snippet is quoted from. Items without
   * content are absent.
   */
  readonly excerpts: (refs: ReadonlyArray<string>, chars: number) => Effect.Effect<ReadonlyMap<string, string>, IndexStoreError>
  /** Items under a concept-id prefix, sorted by ref. */
  readonly browse: (query: BrowseQuery) => Effect.Effect<{ readonly items: ReadonlyArray<IndexedItem>; readonly total: number }, IndexStoreError>
  /** Item counts per bundle. */
  readonly counts: Effect.Effect<Readonly<Record<string, number>>, IndexStoreError>
  /** Per bundle holding items of this type (exact match), their count and bytes; by bundle name, bundles without any left out. */
  readonly typeSizes: (type: string) => Effect.Effect<ReadonlyArray<TypeSize>, IndexStoreError>
  readonly removeBundle: (bundle: string) => Effect.Effect<number, IndexStoreError>
  readonly renameBundle: (from: string, to: string) => Effect.Effect<void, IndexStoreError>
  /** Exact token counts keyed by content hash (IndexDocument.hash), filled lazily by show/curate. */
  readonly cachedTokens: (hash: string) => Effect.Effect<number | undefined, IndexStoreError>
  readonly storeTokens: (hash: string, tokens: number) => Effect.Effect<void, IndexStoreError>
  /**
   * Ranking features copied from state.db, keyed by ref (R-FB-1): `replace`
   * swaps the whole table (index runs), `update` one ref (feedback). `at` is
   * when state.db learned the value, stored as given, so time decay counts
   * from the last outcome even in an index.db built from nothing.
   */
  readonly replaceUtilities: (utilities: ReadonlyMap<string, LearnedUtility>) => Effect.Effect<void, IndexStoreError>
  readonly updateUtility: (ref: string, utility: number, at: string) => Effect.Effect<void, IndexStoreError>
  /**
   * Workspace retirement overlays (spec 06 §8.5, R-MEM-5): each row whose ref
   * and content hash match is marked retired (out of default search). A row
   * whose bytes changed since keeps its own state: the overlay no longer applies.
   */
  readonly retireOverlay: (entries: ReadonlyArray<{ readonly ref: string; readonly hash: string }>) => Effect.Effect<number, IndexStoreError>
  /** Runs `effect` as the only index writer in the workspace (R-IDX-6); readers are not blocked. */
  readonly withWriteLease: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | IndexStoreError, R>
}>() {}
