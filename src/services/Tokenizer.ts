import { Context, type Effect } from "effect"

/**
 * Exact token counts (spec 04 §4–§5): what show's `--max-tokens` and curate's
 * budget are measured in. Counting needs large tables, so a layer loads them
 * on first use only; callers cache counts by content hash in index.db
 * (IndexStore) instead of counting every file at index time.
 */
export class Tokenizer extends Context.Tag("akm/Tokenizer")<Tokenizer, {
  /** The encoding counts are measured in, e.g. "o200k_base". */
  readonly encoding: string
  /** Tokens in `text`; special-token markers in the text count as plain text. */
  readonly count: (text: string) => Effect.Effect<number>
}>() {}
