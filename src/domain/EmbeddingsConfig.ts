import { Schema } from "effect"

/**
 * `search.embeddings` (R-SRCH-4): an OpenAI-compatible embeddings endpoint
 * (Ollama, llama.cpp, vLLM, OpenAI). `baseUrl` is the API root that
 * `/embeddings` is appended to (`http://127.0.0.1:11434/v1`); the endpoint is
 * trusted operator configuration (spec 01 §6). `apiKey` is a credential
 * reference, never a key: `env:VAR` or `secret:<ref>`; without it
 * `env:AKM_EMBEDDINGS_API_KEY` is used when set, else no key is sent.
 */
export const EmbeddingsConfig = Schema.Struct({
  baseUrl: Schema.String.pipe(Schema.filter((url) => /^https?:\/\/[^\s/]+/.test(url) || "an http:// or https:// URL such as http://127.0.0.1:11434/v1")),
  model: Schema.String.pipe(Schema.minLength(1)),
  dimensions: Schema.optional(Schema.Int.pipe(Schema.between(1, 65_536))),
  apiKey: Schema.optional(Schema.String.pipe(Schema.filter((ref) => /^(env:[A-Za-z_][A-Za-z0-9_]*|secret:.+)$/.test(ref) || "a credential reference: env:VAR or secret:<ref>, never the key itself")))
})
export type EmbeddingsConfig = typeof EmbeddingsConfig.Type

/** The credential used when `apiKey` is not set (spec 01 §6). */
export const DEFAULT_EMBEDDINGS_KEY = "env:AKM_EMBEDDINGS_API_KEY"

/** The endpoint a request goes to: `<baseUrl>/embeddings` (a baseUrl already ending in /embeddings is used as it is). */
export const embeddingsUrl = (config: EmbeddingsConfig): string => {
  const base = config.baseUrl.replace(/\/+$/, "")
  return base.endsWith("/embeddings") ? base : `${base}/embeddings`
}

/** What stored vectors are keyed by besides the content hash: another model or size is another space. */
export const embeddingSpace = (config: EmbeddingsConfig): string => `${config.model}${config.dimensions === undefined ? "" : `@${config.dimensions}`}`
