import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { GeneratorAgent } from "../../src/layers/generator/AgentPackets.js"
import { GeneratorNone } from "../../src/layers/generator/GeneratorNone.js"
import { GeneratorScripted } from "../../src/layers/generator/GeneratorScripted.js"
import { Generator, GenerationFailed } from "../../src/services/Generator.js"
import { generatorDeps, generatorFor, goodOutput, sampleRequest } from "../support/generatorHarness.js"
import { startModelStub, type ModelStub } from "../support/modelStub.js"

/**
 * R-ARCH-5: every Generator layer passes this suite — the scripted one, both
 * model protocols against a stub on 127.0.0.1, agent packets, and none.
 */

let stub: ModelStub
beforeAll(async () => {
  stub = await startModelStub([{ kind: "answer", output: goodOutput }])
})
afterAll(() => stub.close())

const layers: ReadonlyArray<{ readonly name: string; readonly layer: () => Layer.Layer<Generator>; readonly available: boolean }> = [
  { name: "scripted", layer: () => GeneratorScripted({ revise: goodOutput.files, learn: goodOutput }), available: true },
  { name: "openai-compatible", layer: () => Layer.orDie(generatorFor({ kind: "openai-compatible", baseUrl: `${stub.url}/v1`, model: "m" })), available: true },
  { name: "anthropic", layer: () => Layer.orDie(generatorFor({ kind: "anthropic", baseUrl: stub.url, model: "m" })), available: true },
  { name: "agent", layer: () => Layer.orDie(GeneratorAgent.pipe(Layer.provideMerge(generatorDeps()))), available: true },
  { name: "none", layer: () => GeneratorNone, available: false }
]

const allowedResultKeys = new Set(["_tag", "files", "rationale", "usage", "cached", "id", "dir"])

for (const entry of layers) {
  describe(`Generator contract: ${entry.name}`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, Generator>) => Effect.scoped(Effect.provide(effect, entry.layer()))

    it.live("has a non-empty id for fingerprints, and says whether it is available", () =>
      run(Effect.gen(function* () {
        const generator = yield* Generator
        expect(generator.id.length).toBeGreaterThan(0)
        expect(generator.available).toBe(entry.available)
      })))

    it.live("answers a request with candidate files or a work packet — or, unavailable, fails as no-generator", () =>
      run(Effect.gen(function* () {
        const generator = yield* Generator
        const outcome = yield* Effect.either(generator.generate(sampleRequest()))
        if (!entry.available) {
          expect(Either.isLeft(outcome) && outcome.left).toBeInstanceOf(GenerationFailed)
          expect(Either.isLeft(outcome) && outcome.left.reason).toBe("no-generator")
          return
        }
        const result = Either.getOrThrow(outcome)
        if (result._tag === "Candidates") {
          expect(result.files.length).toBeGreaterThan(0)
          for (const file of result.files) expect(typeof file.path).toBe("string")
          expect(result.usage.inputTokens).toBeGreaterThanOrEqual(0)
          expect(result.usage.outputTokens).toBeGreaterThanOrEqual(0)
        } else {
          expect(fs.existsSync(path.join(result.dir, "TASK.md"))).toBe(true)
          expect(fs.existsSync(path.join(result.dir, "packet.json"))).toBe(true)
        }
        // R-IMP-8: a generator returns contents and a rationale, never a score or verdict that could accept a change.
        for (const key of Object.keys(result)) expect(allowedResultKeys.has(key)).toBe(true)
      })))

    it.live("a learn request with a file to create and no evidence is answered or refused, never a defect", () =>
      run(Effect.gen(function* () {
        const generator = yield* Generator
        const exit = yield* Effect.exit(generator.generate(sampleRequest({
          recipe: "learn",
          evidence: [],
          targets: [{ bundle: "notes", path: "knowledge/new.md", content: null }],
          allowedPaths: ["knowledge/new.md"]
        })))
        if (exit._tag === "Failure") expect(exit.cause._tag).toBe("Fail")
      })))
  })
}
