import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, type Redacted, Schema, type Scope } from "effect"
import type { GeneratorSettings } from "../../domain/GeneratorConfig.js"
import { ModelCallFailed, postJson, type ModelProvider } from "./ModelGenerator.js"
import { CANDIDATE_SCHEMA_NAME, candidateJsonSchema } from "./prompt.js"

/**
 * `anthropic` (spec 06 §5): the messages protocol through
 * @effect/ai-anthropic's client (base URL, x-api-key, anthropic-version).
 * The structured answer is a forced tool call whose input schema is the
 * candidate schema — the messages API's way to get JSON of a given shape.
 */

const MessagesAnswer = Schema.Struct({
  content: Schema.Array(Schema.Struct({
    type: Schema.String,
    name: Schema.optional(Schema.String),
    input: Schema.optional(Schema.Unknown),
    text: Schema.optional(Schema.String)
  })),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
  usage: Schema.optional(Schema.Struct({
    input_tokens: Schema.optional(Schema.Number),
    output_tokens: Schema.optional(Schema.Number)
  }))
})
const decodeAnswer = Schema.decodeUnknownEither(MessagesAnswer)

export const makeAnthropicProvider = (settings: GeneratorSettings, apiKey: Redacted.Redacted | undefined): Effect.Effect<ModelProvider, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* AnthropicClient.make({ apiUrl: settings.baseUrl, apiKey })
    const what = `the generator at ${settings.baseUrl}`
    const execute = (body: unknown) => client.client.httpClient.execute(HttpClientRequest.post("/v1/messages").pipe(HttpClientRequest.bodyUnsafeJson(body)))
    return {
      call: (prompt) =>
        Effect.gen(function* () {
          const json = yield* postJson(execute, {
            model: settings.model,
            max_tokens: settings.maxOutputTokens,
            system: prompt.system,
            messages: [{ role: "user", content: prompt.user }],
            tools: [{ name: CANDIDATE_SCHEMA_NAME, description: "Submit the candidate files and the rationale.", input_schema: candidateJsonSchema }],
            tool_choice: { type: "tool", name: CANDIDATE_SCHEMA_NAME }
          }, what)
          const answer = decodeAnswer(json)
          if (answer._tag === "Left") return yield* Effect.fail(new ModelCallFailed("malformed", `${what}: the answer is not a messages response`, false))
          if (answer.right.stop_reason === "refusal") return yield* Effect.fail(new ModelCallFailed("refused", `${what}: the model declined`, false))
          const tool = answer.right.content.find((block) => block.type === "tool_use" && block.name === CANDIDATE_SCHEMA_NAME)
          const text = tool !== undefined
            ? JSON.stringify(tool.input ?? null)
            : answer.right.content.filter((block) => block.type === "text").map((block) => block.text ?? "").join("")
          return { text, inputTokens: answer.right.usage?.input_tokens ?? 0, outputTokens: answer.right.usage?.output_tokens ?? 0 }
        })
    } satisfies ModelProvider
  })
