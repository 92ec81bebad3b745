import { Context, type Effect } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../domain/Errors.js"

export interface SemanticMatch {
  readonly ref: string
  /** Cosine similarity in [-1, 1]; only the order is used. */
  readonly similarity: number
}

/** What one index run did to the stored vectors. */
export interface EmbeddingRefresh {
  /** Items embedded now (their content hash had no vector in this space). */
  readonly embedded: number
  /** Items whose vector was already stored for their content hash. */
  readonly reused: number
  /** Items left without a vector because the endpoint failed (searched lexically until the next index). */
  readonly missing: number
}

/**
 * The seam for optional hybrid retrieval (R-SRCH-4): a second candidate
 * source next to the lexical index. With `search.embeddings` configured, the
 * live layer (layers/embeddings/EmbeddingsLive.ts) stores item vectors in
 * index.db at index time (`refresh`, keyed by content hash, never recomputed
 * for an unchanged item) and embeds the query through an OpenAI-compatible
 * `/embeddings` endpoint; search adds its nearest items to the lexical
 * candidates and orders the union by reciprocal-rank fusion
 * (Ranking.fuseRanks). Unconfigured, `nearest` is empty and no network is
 * touched (R-SRCH-1). A layer degrades to `[]` with a one-line notice when the
 * endpoint is unreachable or slow, never failing the search.
 */
export class Embeddings extends Context.Tag("akm/Embeddings")<Embeddings, {
  /** The `limit` items nearest to the query, best first. */
  readonly nearest: (query: string, limit: number) => Effect.Effect<ReadonlyArray<SemanticMatch>, WorkspaceUnavailable | DatabaseTooNew>
  /**
   * Embeds the items of index.db that have no vector for their content hash
   * yet, in batches; undefined when embeddings are not configured. Never
   * fails: an endpoint that fails leaves the rest for the next run, with a notice.
   */
  readonly refresh?: Effect.Effect<EmbeddingRefresh | undefined> | undefined
}>() {}
