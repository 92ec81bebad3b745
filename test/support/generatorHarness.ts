import { Effect, Layer, Redacted } from "effect"
import type { Evidence } from "../../src/domain/Evidence.js"
import type { GeneratorSection } from "../../src/domain/GeneratorConfig.js"
import { GeneratorFromSection } from "../../src/layers/generator/GeneratorLive.js"
import { RedactorSqlite } from "../../src/layers/sqlite/RedactorSqlite.js"
import { StateDbMemory } from "../../src/layers/sqlite/StateDb.js"
import { WorkspaceConfigTemp } from "../../src/layers/test/AkmTest.js"
import { CredentialUnavailable, Credentials } from "../../src/services/Credentials.js"
import type { GenerationRequest } from "../../src/services/Generator.js"

/** Credentials over a fixed table (the runtime's real layer reads env and secret items). */
export const CredentialsTable = (values: Readonly<Record<string, string>>) => {
  const resolve = (reference: string) =>
    values[reference] === undefined
      ? Effect.fail(new CredentialUnavailable(reference, "is not set", `set ${reference.replace(/^env:/, "")} in the environment`))
      : Effect.succeed(Redacted.make(values[reference]))
  return Layer.succeed(Credentials, {
    resolve,
    firstAvailable: (references) => Effect.succeed(references.map((r) => values[r]).find((v) => v !== undefined)).pipe(Effect.map((v) => (v === undefined ? undefined : Redacted.make(v))))
  })
}

/** What every generator layer needs, fresh per use: a temp workspace, state.db in memory, the real redactor. */
export const generatorDeps = (credentials: Readonly<Record<string, string>> = {}) =>
  Layer.mergeAll(RedactorSqlite, CredentialsTable(credentials)).pipe(Layer.provideMerge(StateDbMemory), Layer.provideMerge(WorkspaceConfigTemp))

export const generatorFor = (section: GeneratorSection | undefined, credentials: Readonly<Record<string, string>> = {}) =>
  GeneratorFromSection(section).pipe(Layer.provideMerge(generatorDeps(credentials)))

const evidence: Evidence = {
  id: "ev-1",
  kind: "negative-feedback",
  source: "feedback",
  ref: "notes:knowledge/deploy",
  note: "the deploy steps miss the migration step",
  hash: "h1",
  recordedAt: "2026-01-01T00:00:00.000Z",
  status: "open"
}

let counter = 0

/** A revise request for notes/knowledge/deploy.md; each call gets a fresh fingerprint unless given one. */
export const sampleRequest = (overrides: Partial<GenerationRequest> = {}): GenerationRequest => ({
  recipe: "revise",
  fingerprint: `fp-${process.pid}-${++counter}`,
  authoring: {
    adapter: "akm",
    ruleSetVersion: "1",
    ruleHash: "r",
    guidance: [],
    instructions: "Knowledge items are Markdown with a description in frontmatter.",
    examples: [],
    allowedPaths: ["knowledge/deploy.md"],
    constraints: ["keep the frontmatter keys"]
  },
  evidence: [evidence],
  targets: [{ bundle: "notes", path: "knowledge/deploy.md", content: "---\ndescription: deploy\n---\n# Deploy\n1. build\n2. ship\n", ref: "notes:knowledge/deploy" }],
  instructions: "Revise the item so it answers the evidence.",
  allowedPaths: ["knowledge/deploy.md"],
  ...overrides
})

export const goodOutput = {
  files: [{ path: "knowledge/deploy.md", content: "---\ndescription: deploy with migrations\n---\n# Deploy\n1. build\n2. migrate\n3. ship\n" }],
  rationale: "adds the missing migration step"
}
