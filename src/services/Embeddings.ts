import { Context, type Effect } from "effect"
import type { DatabaseTooNew, WorkspaceUnavailable } from "../domain/Errors.js"

export interface SemanticMatch {
  readonly ref: string
  /** Cosine similarity in [-1, 1]; only the order is used. */
  readonly similarity: number
}

/**
 * The seam for optional hybrid retrieval (R-SRCH-4): a second candidate
 * source next to the lexical index. When a layer provides it (with
 * `search.embeddings` configured: item vectors stored in index.db at index
 * time, keyed by content hash, the query embedded through an
 * OpenAI-compatible `/v1/embeddings`), search adds its nearest items to the
 * lexical candidates and orders the union by reciprocal-rank fusion
 * (Ranking.fuseRanks). No layer ships yet: without one, search is lexical
 * only. A layer must degrade to `[]` with a warning when the embedding service
 * is unreachable, never fail the search.
 */
export class Embeddings extends Context.Tag("akm/Embeddings")<Embeddings, {
  /** The `limit` items nearest to the query, best first. */
  readonly nearest: (query: string, limit: number) => Effect.Effect<ReadonlyArray<SemanticMatch>, WorkspaceUnavailable | DatabaseTooNew>
}>() {}
