import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, type Redacted, Schema, type Scope } from "effect"
import type { GeneratorSettings } from "../../domain/GeneratorConfig.js"
import { ModelCallFailed, postJson, type ModelProvider } from "./ModelGenerator.js"
import { CANDIDATE_SCHEMA_NAME, candidateJsonSchema } from "./prompt.js"

/**
 * `openai-compatible` (spec 06 §5): the chat-completions protocol through
 * @effect/ai-openai's client (base URL, bearer key, redacted headers) with a
 * JSON-schema structured answer. Chat completions rather than the library's
 * LanguageModel, which speaks the Responses API: local servers (Ollama,
 * llama.cpp, vLLM) all serve /v1/chat/completions. The answer is decoded
 * leniently for the same reason: they omit fields (`refusal`, `logprobs`)
 * that the generated OpenAI schema requires (decision 0017).
 */

const ChatAnswer = Schema.Struct({
  choices: Schema.NonEmptyArray(Schema.Struct({
    message: Schema.Struct({
      content: Schema.optional(Schema.NullOr(Schema.String)),
      refusal: Schema.optional(Schema.NullOr(Schema.String))
    }),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  })),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    prompt_tokens: Schema.optional(Schema.Number),
    completion_tokens: Schema.optional(Schema.Number)
  })))
})
const decodeAnswer = Schema.decodeUnknownEither(ChatAnswer)

export const makeOpenAiProvider = (settings: GeneratorSettings, apiKey: Redacted.Redacted | undefined): Effect.Effect<ModelProvider, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* OpenAiClient.make({ apiUrl: settings.baseUrl, apiKey })
    const what = `the generator at ${settings.baseUrl}`
    const execute = (body: unknown) => client.client.httpClient.execute(HttpClientRequest.post("/chat/completions").pipe(HttpClientRequest.bodyUnsafeJson(body)))
    return {
      call: (prompt) =>
        Effect.gen(function* () {
          const json = yield* postJson(execute, {
            model: settings.model,
            messages: [
              { role: "system", content: prompt.system },
              { role: "user", content: prompt.user }
            ],
            response_format: { type: "json_schema", json_schema: { name: CANDIDATE_SCHEMA_NAME, strict: true, schema: candidateJsonSchema } }
          }, what)
          const answer = decodeAnswer(json)
          if (answer._tag === "Left") return yield* Effect.fail(new ModelCallFailed("malformed", `${what}: the answer is not a chat completion`, false))
          const choice = answer.right.choices[0]
          const refusal = choice.message.refusal
          if (refusal !== undefined && refusal !== null && refusal !== "") return yield* Effect.fail(new ModelCallFailed("refused", `${what}: the model declined: ${refusal.slice(0, 200)}`, false))
          return {
            text: choice.message.content ?? "",
            inputTokens: answer.right.usage?.prompt_tokens ?? 0,
            outputTokens: answer.right.usage?.completion_tokens ?? 0
          }
        })
    } satisfies ModelProvider
  })
