import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Clock, Duration, Effect, Either } from "effect"
import { callCost, type GeneratorSettings } from "../../domain/GeneratorConfig.js"
import { GenerationFailed, type CandidateFile, type GenerationRequest, type GenerationResult, type Generator } from "../../services/Generator.js"
import type { Redactor } from "../../services/Redactor.js"
import { FetchFailed, FetchRefused } from "../http/SafeHttp.js"
import type { CallOutcome, GeneratorCallStore } from "../sqlite/GeneratorCalls.js"
import { buildPrompt, parseCandidateOutput, type Prompt } from "./prompt.js"

/**
 * What every model generator shares, whatever the wire protocol (R-GEN-1,
 * R-GEN-2): the prompt redacted once more as a last guard, the response cache
 * by fingerprint, a timeout per attempt, exactly one retry on a 5xx or a lost
 * connection, a size bound (the HTTP client stops reading past it), the
 * structured answer checked, and one accounting row per generate().
 */

/** One model's answer: the structured JSON as text, and the tokens it cost. */
export interface ModelReply {
  readonly text: string
  readonly inputTokens: number
  readonly outputTokens: number
}

/** A failed exchange; `retryable` for a 5xx or a lost connection. */
export class ModelCallFailed {
  readonly _tag = "ModelCallFailed"
  constructor(readonly reason: GenerationFailed["reason"], readonly message: string, readonly retryable: boolean) {}
}

/** One wire protocol (chat completions, messages): a single HTTP exchange, no retries of its own. */
export interface ModelProvider {
  readonly call: (prompt: Prompt) => Effect.Effect<ModelReply, ModelCallFailed>
}

/** Request/response failures of the HTTP client, worded once for every provider. */
export const httpFailure = (error: HttpClientError.HttpClientError, what: string): ModelCallFailed => {
  if (error._tag === "RequestError") {
    const cause = error.cause
    if (cause instanceof FetchFailed && cause.tooLarge === true) return new ModelCallFailed("too-large", `${what}: the answer is larger than the configured maxOutputBytes; read no further`, false)
    if (cause instanceof FetchFailed && cause.timedOut === true) return new ModelCallFailed("timeout", `${what}: ${cause.reason}`, false)
    if (cause instanceof FetchRefused) return new ModelCallFailed("refused", `${what}: ${cause.reason}`, false)
    const reason = cause instanceof FetchFailed ? cause.reason : error.description ?? "the request failed"
    return new ModelCallFailed("http", `${what}: ${reason}`, true)
  }
  return statusFailure(error.response, what)
}

/** A non-2xx answer: 5xx is retried once; 401/403 name the key; the body is not echoed (it may quote the prompt). */
export const statusFailure = (response: HttpClientResponse.HttpClientResponse, what: string): ModelCallFailed => {
  const status = response.status
  if (status >= 500) return new ModelCallFailed("http", `${what}: the server answered ${status}`, true)
  if (status === 401 || status === 403)
    return new ModelCallFailed("refused", `${what}: the server refused the credentials (${status}); set improve.generator.apiKey (env:VAR or secret:<ref>) or AKM_GENERATOR_API_KEY`, false)
  return new ModelCallFailed("http", `${what}: the server answered ${status}`, false)
}

/** POST one JSON request and read the answer's JSON (the client has already bounded its size). */
export const postJson = (
  execute: (body: unknown) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>,
  body: unknown,
  what: string
): Effect.Effect<unknown, ModelCallFailed> =>
  Effect.gen(function* () {
    const response = yield* execute(body)
    if (response.status < 200 || response.status > 299) return yield* Effect.fail(statusFailure(response, what))
    const text = yield* response.text
    return yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => new ModelCallFailed("malformed", `${what}: the answer is not JSON`, false) })
  }).pipe(Effect.catchIf(HttpClientError.isHttpClientError, (e) => Effect.fail(httpFailure(e, what))))

interface CachedAnswer {
  readonly files: ReadonlyArray<CandidateFile>
  readonly rationale?: string | undefined
}

const decodeCached = (text: string): CachedAnswer | undefined => {
  try {
    const parsed = parseCandidateOutput(text)
    return Either.isRight(parsed) ? parsed.right : undefined
  } catch {
    return undefined
  }
}

export interface ModelGeneratorDeps {
  readonly id: string
  readonly settings: GeneratorSettings
  /** Built on first use (a key resolved, a client made); its failure fails that generate() only. */
  readonly provider: Effect.Effect<ModelProvider, GenerationFailed>
  readonly redactor: Redactor["Type"]
  readonly calls: GeneratorCallStore
}

export const makeModelGenerator = (deps: ModelGeneratorDeps): Generator["Type"] => {
  const { id, settings, redactor, calls } = deps

  const generate = (request: GenerationRequest): Effect.Effect<GenerationResult, GenerationFailed> =>
    Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      const record = (outcome: CallOutcome, attempts: number, usage: { inputTokens: number; outputTokens: number }, costUsd?: number) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          calls.record({ at: new Date(now).toISOString(), generator: id, fingerprint: request.fingerprint, outcome, attempts, ...usage, costUsd, durationMs: now - started })
        )

      const hit = yield* calls.cached(id, request.fingerprint)
      const cached = hit === undefined ? undefined : decodeCached(hit)
      if (cached !== undefined) {
        yield* record("cached", 0, { inputTokens: 0, outputTokens: 0 })
        return { _tag: "Candidates", files: cached.files, rationale: cached.rationale, usage: { inputTokens: 0, outputTokens: 0 }, cached: true } satisfies GenerationResult
      }

      const raw = buildPrompt(request)
      // R-GEN-1: the recipe redacted its inputs; this pass catches whatever slipped through.
      const prompt: Prompt = { system: yield* redactor.redact(raw.system), user: yield* redactor.redact(raw.user) }
      const provider = yield* deps.provider
      const timeoutMs = request.timeoutMs ?? settings.timeoutMs
      let attempts = 0
      const attempt = Effect.suspend(() => {
        attempts += 1
        return provider.call(prompt).pipe(
          Effect.timeoutFail({ duration: Duration.millis(timeoutMs), onTimeout: () => new ModelCallFailed("timeout", `${id}: no answer within ${timeoutMs} ms`, false) })
        )
      })
      const reply = yield* attempt.pipe(
        Effect.retry({ times: 1, while: (e) => e.retryable }),
        Effect.tapError((e) => record(e.reason === "no-generator" ? "http" : e.reason, attempts, { inputTokens: 0, outputTokens: 0 })),
        Effect.mapError((e) => new GenerationFailed(e.reason, e.message))
      )
      const usage = { inputTokens: reply.inputTokens, outputTokens: reply.outputTokens }
      const costUsd = callCost(settings, usage)
      const parsed = parseCandidateOutput(reply.text)
      if (Either.isLeft(parsed)) {
        yield* record("malformed", attempts, usage, costUsd)
        return yield* Effect.fail(new GenerationFailed("malformed", `${id}: ${parsed.left}`))
      }
      // Model output is stored (cache) and shown (review): it passes the redactor like every other text.
      const files = yield* Effect.forEach(parsed.right.files, (file) =>
        file.content === null ? Effect.succeed(file) : Effect.map(redactor.redact(file.content), (content): CandidateFile => ({ path: file.path, content }))
      )
      const rationale = parsed.right.rationale === undefined ? undefined : yield* redactor.redact(parsed.right.rationale)
      const now = yield* Clock.currentTimeMillis
      yield* calls.store(id, request.fingerprint, JSON.stringify({ files, rationale: rationale ?? "" }), new Date(now).toISOString())
      yield* record("ok", attempts, usage, costUsd)
      return { _tag: "Candidates", files, rationale, usage: { ...usage, costUsd }, cached: false } satisfies GenerationResult
    })

  return { id, available: true, generate }
}
