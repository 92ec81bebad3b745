import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import type { GeneratorSection } from "../../../src/domain/GeneratorConfig.js"
import { GeneratorLive } from "../../../src/layers/generator/GeneratorLive.js"
import { generatorCallStore } from "../../../src/layers/sqlite/GeneratorCalls.js"
import { StateDb } from "../../../src/layers/sqlite/StateDb.js"
import { Generator, type GenerationFailed, type GenerationResult } from "../../../src/services/Generator.js"
import { Redactor } from "../../../src/services/Redactor.js"
import { WorkspaceConfig } from "../../../src/services/WorkspaceConfig.js"
import { generatorDeps, generatorFor, goodOutput, sampleRequest } from "../../support/generatorHarness.js"
import { startModelStub, type ModelStub, type StubReply } from "../../support/modelStub.js"

/**
 * The model generators against a real HTTP server on 127.0.0.1 speaking each
 * wire protocol, through the real HTTP client (R-GEN-1, R-GEN-2).
 */

const protocols = [
  { kind: "openai-compatible", base: (url: string) => `${url}/v1`, path: "/v1/chat/completions", auth: (h: Record<string, unknown>) => h["authorization"] === "Bearer sk-test-key" },
  { kind: "anthropic", base: (url: string) => url, path: "/v1/messages", auth: (h: Record<string, unknown>) => h["x-api-key"] === "sk-test-key" && h["anthropic-version"] !== undefined }
] as const

let stub: ModelStub | undefined
afterEach(async () => {
  await stub?.close()
  stub = undefined
})

const serve = async (replies: ReadonlyArray<StubReply>) => (stub = await startModelStub(replies))

const candidates = (result: GenerationResult) => {
  if (result._tag !== "Candidates") throw new Error(`expected candidates, got ${result._tag}`)
  return result
}

const failure = (either: Either.Either<GenerationResult, GenerationFailed>): GenerationFailed => {
  if (Either.isRight(either)) throw new Error("expected a failure")
  return either.left
}

for (const protocol of protocols) {
  describe(`${protocol.kind} generator`, () => {
    const section = (url: string, extra: Partial<GeneratorSection> = {}): GeneratorSection => ({
      kind: protocol.kind,
      baseUrl: protocol.base(url),
      model: "stub-model",
      apiKey: "env:TEST_KEY",
      ...extra
    })
    const run = <A, E>(url: string, effect: Effect.Effect<A, E, Generator | StateDb | Redactor>, extra: Partial<GeneratorSection> = {}) =>
      Effect.scoped(effect.pipe(Effect.provide(generatorFor(section(url, extra), { "env:TEST_KEY": "sk-test-key" }))))

    it.live("returns the structured candidates, their usage and cost, with the key sent to the configured base URL", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "answer", output: goodOutput, usage: { input: 1000, output: 500 } }]))
        const result = yield* run(server.url, Effect.flatMap(Generator, (g) => g.generate(sampleRequest())), { price: { inputPerMTok: 2, outputPerMTok: 8 } })
        const c = candidates(result)
        expect(c.files).toEqual(goodOutput.files)
        expect(c.rationale).toBe(goodOutput.rationale)
        expect(c.cached).toBe(false)
        expect(c.usage).toEqual({ inputTokens: 1000, outputTokens: 500, costUsd: (1000 * 2 + 500 * 8) / 1_000_000 })
        expect(server.paths).toEqual([protocol.path])
        expect(protocol.auth(server.headers[0]!)).toBe(true)
        const body = JSON.parse(server.bodies[0]!) as Record<string, unknown>
        expect(body["model"]).toBe("stub-model")
        // The structured-output contract travels with the request.
        expect(JSON.stringify(body)).toContain("candidate_files")
      }))

    it.live("a 5xx is retried exactly once", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "raw", status: 503, body: "{}" }, { kind: "answer", output: goodOutput }]))
        const result = yield* run(server.url, Effect.flatMap(Generator, (g) => g.generate(sampleRequest())))
        expect(candidates(result).files).toEqual(goodOutput.files)
        expect(server.bodies).toHaveLength(2)
      }))

    it.live("two 5xx in a row fail as http after two requests", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "raw", status: 500, body: "{}" }]))
        const error = failure(yield* run(server.url, Effect.either(Effect.flatMap(Generator, (g) => g.generate(sampleRequest())))))
        expect(error.reason).toBe("http")
        expect(error.message).toContain("500")
        expect(server.bodies).toHaveLength(2)
      }))

    it.live("a lost connection is retried once and the retry's answer is used", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "drop" }, { kind: "answer", output: goodOutput }]))
        const result = yield* run(server.url, Effect.flatMap(Generator, (g) => g.generate(sampleRequest())))
        expect(candidates(result).files).toEqual(goodOutput.files)
        expect(server.bodies).toHaveLength(2)
      }))

    it.live("a lost connection is retried once, then fails as http", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "drop" }]))
        const error = failure(yield* run(server.url, Effect.either(Effect.flatMap(Generator, (g) => g.generate(sampleRequest())))))
        expect(error.reason).toBe("http")
        expect(server.bodies).toHaveLength(2)
      }))

    it.live("a 4xx is not retried; 401 names the key setting without its value", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "raw", status: 401, body: "{\"error\":\"bad key\"}" }]))
        const error = failure(yield* run(server.url, Effect.either(Effect.flatMap(Generator, (g) => g.generate(sampleRequest())))))
        expect(error.reason).toBe("refused")
        expect(error.message).toContain("apiKey")
        expect(error.message).not.toContain("sk-test-key")
        expect(server.bodies).toHaveLength(1)
      }))

    it.live("a server that never answers times out (no retry)", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "hang" }]))
        const started = Date.now()
        const error = failure(yield* run(server.url, Effect.either(Effect.flatMap(Generator, (g) => g.generate(sampleRequest({ timeoutMs: 300 }))))))
        expect(error.reason).toBe("timeout")
        expect(Date.now() - started).toBeLessThan(5_000)
        expect(server.bodies).toHaveLength(1)
      }))

    it.live("a body that is not JSON is malformed", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "raw", status: 200, body: "{\"choices\": [" }]))
        const error = failure(yield* run(server.url, Effect.either(Effect.flatMap(Generator, (g) => g.generate(sampleRequest())))))
        expect(error.reason).toBe("malformed")
      }))

    it.live("an empty, non-JSON or schema-violating structured answer is malformed", () =>
      Effect.gen(function* () {
        for (const output of ["", "I think the item is fine.", { files: [] }, { files: [{ path: "a.md" }] }, { rationale: "no files" }]) {
          const server = yield* Effect.promise(() => serve([{ kind: "answer", output }]))
          const error = failure(yield* run(server.url, Effect.either(Effect.flatMap(Generator, (g) => g.generate(sampleRequest())))))
          expect(error.reason).toBe("malformed")
          yield* Effect.promise(() => server.close())
        }
      }))

    it.live("a 10 MB answer fails as too-large without reading it whole", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "huge", bytes: 10 * 1024 * 1024 }]))
        const before = process.memoryUsage().arrayBuffers
        const error = failure(yield* run(server.url, Effect.either(Effect.flatMap(Generator, (g) => g.generate(sampleRequest()))), { maxOutputBytes: 1024 * 1024 }))
        expect(error.reason).toBe("too-large")
        expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 1024 * 1024)
        expect(server.bodies).toHaveLength(1)
      }))

    it.live("a candidate outside the allowed paths is returned as given (Improve's Level 1 rejects it)", () =>
      Effect.gen(function* () {
        const escape = { files: [{ path: "../other/secrets.md", content: "x" }, { path: "knowledge/deploy.md", content: "y" }], rationale: "" }
        const server = yield* Effect.promise(() => serve([{ kind: "answer", output: escape }]))
        const result = candidates(yield* run(server.url, Effect.flatMap(Generator, (g) => g.generate(sampleRequest()))))
        expect(result.files.map((f) => f.path)).toEqual(["../other/secrets.md", "knowledge/deploy.md"])
      }))

    it.live("R-GEN-1: a secret in a target's text never reaches the server", () =>
      Effect.gen(function* () {
        const canary = "canary-Zq8v3LmW9xT2pK"
        const server = yield* Effect.promise(() => serve([{ kind: "answer", output: goodOutput }]))
        const request = sampleRequest({
          targets: [{ bundle: "notes", path: "knowledge/deploy.md", content: `# Deploy\nDB_PASSWORD=${canary}\nAWS key AKIAIOSFODNN7EXAMPLE\n` }]
        })
        yield* run(server.url, Effect.gen(function* () {
          yield* (yield* Redactor).storeValues("notes", [canary])
          return yield* (yield* Generator).generate(request)
        }))
        expect(server.bodies).toHaveLength(1)
        expect(server.bodies[0]).not.toContain(canary)
        expect(server.bodies[0]).not.toContain("AKIAIOSFODNN7EXAMPLE")
        expect(server.bodies[0]).toContain("[redacted:")
      }))

    it.live("R-GEN-2: the same fingerprint again is served from the cache with no request; every call is accounted", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "answer", output: goodOutput, usage: { input: 10, output: 5 } }]))
        const request = sampleRequest()
        const [first, second, totals] = yield* run(server.url, Effect.gen(function* () {
          const generator = yield* Generator
          const first = yield* generator.generate(request)
          const second = yield* generator.generate(request)
          return [first, second, yield* generatorCallStore(yield* StateDb).totals] as const
        }))
        expect(candidates(first).cached).toBe(false)
        expect(candidates(second).cached).toBe(true)
        expect(candidates(second).files).toEqual(goodOutput.files)
        expect(candidates(second).usage).toEqual({ inputTokens: 0, outputTokens: 0 })
        expect(server.bodies).toHaveLength(1)
        expect(totals).toMatchObject({ calls: 1, inputTokens: 10, outputTokens: 5 })
      }))

    it.live("an explicit key reference that does not resolve fails that generate() with the reference, no request made", () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => serve([{ kind: "answer", output: goodOutput }]))
        const error = failure(yield* run(server.url, Effect.either(Effect.flatMap(Generator, (g) => g.generate(sampleRequest()))), { apiKey: "env:MISSING_KEY" }))
        expect(error.reason).toBe("refused")
        expect(error.message).toContain("env:MISSING_KEY")
        expect(server.bodies).toHaveLength(0)
      }))
  })
}

describe("GeneratorLive", () => {
  it.live("builds the generator config.yaml names, with an id that names kind, model and host", () =>
    Effect.gen(function* () {
      const server = yield* Effect.promise(() => serve([{ kind: "answer", output: goodOutput }]))
      const result = yield* Effect.scoped(Effect.gen(function* () {
        const workspace = yield* WorkspaceConfig
        yield* workspace.update((editor) => editor.set(["improve"], { generator: { kind: "openai-compatible", baseUrl: `${server.url}/v1`, model: "qwen3" } }))
        // GeneratorLive reads config.yaml when it is built: here, after the edit.
        return yield* Effect.flatMap(Generator, (g) => Effect.map(g.generate(sampleRequest()), (r) => ({ id: g.id, r }))).pipe(Effect.provide(GeneratorLive))
      }).pipe(Effect.provide(generatorDeps())))
      expect(result.id).toBe(`openai-compatible:qwen3@${new URL(server.url).host}`)
      expect(candidates(result.r).files).toEqual(goodOutput.files)
      // No key configured and none in the default chain: a local server gets no auth header.
      expect(server.headers[0]!["authorization"]).toBeUndefined()
    }))

  it.live("no improve.generator → available false and every generate fails as no-generator (R-GEN-3)", () =>
    Effect.gen(function* () {
      const { available, outcome } = yield* Effect.scoped(
        Effect.flatMap(Generator, (g) => Effect.map(Effect.either(g.generate(sampleRequest())), (outcome) => ({ available: g.available, outcome }))).pipe(
          Effect.provide(GeneratorLive.pipe(Layer.provideMerge(generatorDeps())))
        )
      )
      expect(available).toBe(false)
      expect(failure(outcome).reason).toBe("no-generator")
    }))
})
