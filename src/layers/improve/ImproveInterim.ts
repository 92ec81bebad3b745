import { Effect, Layer } from "effect"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { GenerationFailed, Generator } from "../../services/Generator.js"

/**
 * Stand-ins until the EvidenceStore (state.db evidence table) and Generator
 * layers are wired into the CLI: no evidence, no generator. With them
 * `akm improve` has nothing to do and says so; the real layers replace
 * these in src/cli/improve.ts (improveServices).
 */
export const EvidenceStoreNone = Layer.succeed(EvidenceStore, EvidenceStore.of({
  add: () => Effect.succeed([]),
  list: () => Effect.succeed([]),
  get: () => Effect.succeed([]),
  independentCount: (rows) => new Set(rows.map((r) => r.independenceKey ?? r.id)).size,
  mark: () => Effect.void
}))

export const GeneratorNone = Layer.succeed(Generator, Generator.of({
  id: "none",
  available: false,
  generate: () => Effect.fail(new GenerationFailed("no-generator", "no generator is configured (improve.generator in config.yaml)"))
}))
