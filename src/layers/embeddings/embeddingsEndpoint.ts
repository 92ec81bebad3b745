import { Effect, Redacted, Schema } from "effect"
import { embeddingsUrl, type EmbeddingsConfig } from "../../domain/EmbeddingsConfig.js"
import { unit } from "../../domain/Vectors.js"

/** Why the endpoint gave no vectors: a line for the human, never a key or a response body. */
export class EmbeddingsUnavailable {
  readonly _tag = "EmbeddingsUnavailable"
  constructor(readonly reason: string) {}
}

/** The part of an OpenAI-compatible `/embeddings` answer that is used. */
const Answer = Schema.Struct({
  data: Schema.Array(Schema.Struct({ embedding: Schema.Array(Schema.Number), index: Schema.optional(Schema.Number) }))
})
const decodeAnswer = Schema.decodeUnknownEither(Answer)

/**
 * POSTs `inputs` to the configured endpoint and returns one unit vector per
 * input, in order, within `timeoutMs` (R-SRCH-4). The key goes only into the
 * Authorization header; failures say what happened, never what was sent.
 */
export const requestEmbeddings = (config: EmbeddingsConfig, key: Redacted.Redacted<string> | undefined, inputs: ReadonlyArray<string>, timeoutMs: number) =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(embeddingsUrl(config), {
        method: "POST",
        headers: { "content-type": "application/json", ...(key === undefined ? {} : { authorization: `Bearer ${Redacted.value(key)}` }) },
        body: JSON.stringify({ model: config.model, input: inputs, ...(config.dimensions === undefined ? {} : { dimensions: config.dimensions }) }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
      })
      if (!response.ok) {
        await response.body?.cancel()
        throw new EmbeddingsUnavailable(`the embeddings endpoint answered HTTP ${response.status}`)
      }
      return (await response.json()) as unknown
    },
    catch: (error) =>
      error instanceof EmbeddingsUnavailable
        ? error
        : new EmbeddingsUnavailable(
          error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
            ? `the embeddings endpoint did not answer within ${timeoutMs} ms`
            : `the embeddings endpoint could not be reached (${error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error instanceof Error ? error.message : error)})`
        )
  }).pipe(
    Effect.flatMap((body) => {
      const answer = decodeAnswer(body)
      if (answer._tag === "Left" || answer.right.data.length !== inputs.length) {
        return Effect.fail(new EmbeddingsUnavailable(`the embeddings endpoint answered without one vector per input`))
      }
      const ordered = [...answer.right.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
      const size = ordered[0]?.embedding.length ?? 0
      if (size === 0 || ordered.some((d) => d.embedding.length !== size) || (config.dimensions !== undefined && size !== config.dimensions)) {
        return Effect.fail(new EmbeddingsUnavailable(`the embeddings endpoint answered vectors of ${size} dimensions${config.dimensions === undefined ? "" : `, not ${config.dimensions}`}`))
      }
      return Effect.succeed(ordered.map((d) => unit(d.embedding)))
    })
  )
