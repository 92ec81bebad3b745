import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeScriptedGenerator } from "../../../src/layers/generator/GeneratorScripted.js"
import { GenerationFailed } from "../../../src/services/Generator.js"
import { sampleRequest } from "../../support/generatorHarness.js"

/** The scripted generator: tests, the bench and embedding programs bring the answers. */
describe("scripted generator", () => {
  const file = { path: "knowledge/deploy.md", content: "new" }

  it.effect("a table answers by target path first, then by recipe", () =>
    Effect.gen(function* () {
      const byPath = makeScriptedGenerator({ "knowledge/deploy.md": [file], revise: [{ path: "other.md", content: "x" }] })
      expect(yield* byPath.generate(sampleRequest())).toMatchObject({ _tag: "Candidates", files: [file], cached: false })
      const byRecipe = makeScriptedGenerator({ revise: { files: [file], rationale: "why" } }, "good-model")
      expect(byRecipe.id).toBe("scripted:good-model")
      expect(yield* byRecipe.generate(sampleRequest())).toMatchObject({ files: [file], rationale: "why" })
    }))

  it.effect("a function (plain or effectful) sees the request; no answer or no files is malformed", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const fn = makeScriptedGenerator((request) => {
        seen.push(request.fingerprint)
        return request.recipe === "revise" ? [file] : undefined
      })
      expect(yield* fn.generate(sampleRequest({ fingerprint: "f1" }))).toMatchObject({ files: [file] })
      expect(seen).toEqual(["f1"])
      expect((yield* Effect.flip(fn.generate(sampleRequest({ recipe: "learn" })))).reason).toBe("malformed")
      const failing = makeScriptedGenerator(() => Effect.fail(new GenerationFailed("timeout", "slow model")))
      expect((yield* Effect.flip(failing.generate(sampleRequest()))).reason).toBe("timeout")
      expect((yield* Effect.flip(makeScriptedGenerator({ revise: [] }).generate(sampleRequest()))).reason).toBe("malformed")
    }))
})
