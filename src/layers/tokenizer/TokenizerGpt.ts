import { Effect, Layer } from "effect"
import { Tokenizer } from "../../services/Tokenizer.js"

/** The part of a gpt-tokenizer encoding module this layer uses. */
export interface TokenCounter {
  readonly countTokens: (text: string, options: { readonly disallowedSpecial: Set<string> }) => number
}

/** Text such as "<|endoftext|>" in a note is content, not a control token: nothing is disallowed. */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() }

/**
 * A Tokenizer over a lazily loaded encoding: `load` runs on the first count,
 * once, so commands that never count tokens never load the tables.
 */
export const makeTokenizer = (encoding: string, load: () => Promise<TokenCounter>) =>
  Effect.map(Effect.cached(Effect.promise(load)), (counter) =>
    Tokenizer.of({
      encoding,
      count: (text) => (text === "" ? Effect.succeed(0) : Effect.map(counter, (c) => c.countTokens(text, AS_PLAIN_TEXT)))
    }))

/**
 * gpt-tokenizer's o200k_base (the GPT-4o/GPT-5 encoding), imported dynamically
 * so its 2 MB of ranks are read only when a count is needed.
 */
export const TokenizerGpt = Layer.effect(Tokenizer, makeTokenizer("o200k_base", () => import("gpt-tokenizer/encoding/o200k_base")))
