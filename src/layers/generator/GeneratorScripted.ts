import { Effect, Layer } from "effect"
import { Generator, GenerationFailed, type CandidateFile, type GenerationRequest, type GenerationResult } from "../../services/Generator.js"

/**
 * The `scripted` generator (spec 06 §5): given candidates, no model — for
 * tests, benchmarks and embedding programs that bring their own. A script is
 * a function of the request, or a table keyed by a target's path (first
 * target found wins) or by the recipe name.
 */

export type ScriptAnswer = ReadonlyArray<CandidateFile> | { readonly files: ReadonlyArray<CandidateFile>; readonly rationale?: string | undefined }

export type Script =
  | ((request: GenerationRequest) => ScriptAnswer | undefined | Effect.Effect<ScriptAnswer | undefined, GenerationFailed>)
  | Readonly<Record<string, ScriptAnswer>>

const answerOf = (script: Script, request: GenerationRequest): Effect.Effect<ScriptAnswer | undefined, GenerationFailed> => {
  if (typeof script === "function") {
    const answer = script(request)
    return Effect.isEffect(answer) ? answer : Effect.succeed(answer)
  }
  const byTarget = request.targets.map((t) => script[t.path]).find((a) => a !== undefined)
  return Effect.succeed(byTarget ?? script[request.recipe])
}

export const makeScriptedGenerator = (script: Script, name = "scripted"): Generator["Type"] => ({
  id: `scripted:${name}`,
  available: true,
  generate: (request) =>
    answerOf(script, request).pipe(
      Effect.flatMap((answer): Effect.Effect<GenerationResult, GenerationFailed> => {
        if (answer === undefined) return Effect.fail(new GenerationFailed("malformed", `scripted:${name} has no answer for ${request.targets[0]?.path ?? request.recipe}`))
        const { files, rationale } = Array.isArray(answer) ? { files: answer as ReadonlyArray<CandidateFile>, rationale: undefined } : (answer as Exclude<ScriptAnswer, ReadonlyArray<CandidateFile>>)
        if (files.length === 0) return Effect.fail(new GenerationFailed("malformed", `scripted:${name} answered no candidate file`))
        return Effect.succeed({ _tag: "Candidates", files, rationale, usage: { inputTokens: 0, outputTokens: 0 }, cached: false })
      })
    )
})

export const GeneratorScripted = (script: Script, name?: string): Layer.Layer<Generator> => Layer.succeed(Generator, makeScriptedGenerator(script, name))
