import { createHash } from "node:crypto"
import { Effect, Layer } from "effect"
import type { Evidence, EvidenceInput } from "../src/domain/Evidence.js"
import { EvidenceStore } from "../src/services/EvidenceStore.js"
import { Generator, type CandidateFile, type GenerationRequest } from "../src/services/Generator.js"

/**
 * The improve benchmark's stand-ins, in one file so the real layers can
 * replace them: evidence rows in memory and a scripted generator that plays
 * a good or a bad model by answering from the fixture's candidates. It counts
 * calls; a repeat of an answered request is a cache hit (no call), as the
 * real generators' response cache keyed by fingerprint behaves (R-GEN-2).
 */

export const benchEvidence = (inputs: ReadonlyArray<EvidenceInput>) => {
  const rows: Array<Evidence> = inputs.map((input, i) => {
    const hash = createHash("sha256").update(JSON.stringify([input.kind, input.ref ?? null, input.note, input.query ?? null, input.origin ?? null])).digest("hex")
    return { ...input, id: `ev${i}-${hash.slice(0, 10)}`, hash, recordedAt: "2026-01-01T00:00:00.000Z", status: "open" }
  })
  return Layer.succeed(EvidenceStore, EvidenceStore.of({
    add: () => Effect.succeed([]),
    list: (f) => Effect.sync(() => rows.filter((r) => (f.ref === undefined || r.ref === f.ref) && (f.kind === undefined || r.kind === f.kind) && (f.status === undefined || r.status === f.status))),
    get: (ids) => Effect.sync(() => rows.filter((r) => ids.includes(r.id))),
    independentCount: (list) => new Set(list.map((r) => r.independenceKey ?? r.id)).size,
    mark: (ids, status) => Effect.sync(() => rows.forEach((r, i) => { if (ids.includes(r.id)) rows[i] = { ...r, status } })),
    idsStartingWith: (prefix, limit) => Effect.sync(() => rows.filter((r) => r.id.startsWith(prefix)).slice(0, limit).map((r) => r.id)),
    renameBundle: () => Effect.void
  }))
}

export interface ScriptedModel {
  readonly calls: { n: number }
  readonly layer: Layer.Layer<Generator>
}

/** `answer` maps a request to the candidate files the scripted model returns. */
export const scriptedModel = (name: string, answer: (request: GenerationRequest) => ReadonlyArray<CandidateFile>): ScriptedModel => {
  const calls = { n: 0 }
  const layer = Layer.succeed(Generator, Generator.of({
    id: `scripted:${name}`,
    available: true,
    generate: (request) =>
      Effect.sync(() => {
        calls.n++
        const files = answer(request)
        return { _tag: "Candidates" as const, files, usage: { inputTokens: JSON.stringify(request).length / 4, outputTokens: JSON.stringify(files).length / 4 }, cached: false }
      })
  }))
  return { calls, layer }
}
