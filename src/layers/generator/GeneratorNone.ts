import { Effect, Layer } from "effect"
import { Generator, GenerationFailed } from "../../services/Generator.js"

/**
 * No generator configured (R-GEN-3): `available` is false, so semantic
 * recipes report "no generator" and mechanical work still runs.
 */
export const makeNoGenerator = (why = "no generator is configured"): Generator["Type"] => ({
  id: "none",
  available: false,
  generate: () => Effect.fail(new GenerationFailed("no-generator", `${why}; set improve.generator in config.yaml (see docs/generators.md)`))
})

export const GeneratorNone = Layer.succeed(Generator, makeNoGenerator())
