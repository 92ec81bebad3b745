import { createHash } from "node:crypto"
import { Effect, Layer } from "effect"
import type { Evidence, EvidenceInput } from "../../src/domain/Evidence.js"
import { EvidenceStore } from "../../src/services/EvidenceStore.js"
import { GenerationFailed, Generator, type CandidateFile, type GenerationRequest, type GenerationResult } from "../../src/services/Generator.js"

/**
 * Small test layers for Improve: evidence rows in memory and a scripted
 * generator that counts its calls. The real EvidenceStore (state.db) and
 * Generator layers pass the same contract; these stand in for them.
 */

const sha = (text: string) => createHash("sha256").update(text).digest("hex")

export const evidenceOf = (inputs: ReadonlyArray<EvidenceInput>): ReadonlyArray<Evidence> =>
  inputs.map((input, i) => {
    const hash = sha(JSON.stringify([input.kind, input.ref ?? null, input.note, input.query ?? null, input.origin ?? null]))
    return { ...input, id: `ev-${i}-${hash.slice(0, 8)}`, hash, recordedAt: "2026-01-01T00:00:00.000Z", status: "open" as const }
  })

export const evidenceMemory = (inputs: ReadonlyArray<EvidenceInput>) => {
  const rows = [...evidenceOf(inputs)]
  return Layer.succeed(EvidenceStore, EvidenceStore.of({
    add: () => Effect.die("not used"),
    list: (f) => Effect.sync(() => rows.filter((r) => (f.ref === undefined || r.ref === f.ref) && (f.kind === undefined || r.kind === f.kind) && (f.status === undefined || r.status === f.status))),
    get: (ids) => Effect.sync(() => rows.filter((r) => ids.includes(r.id))),
    independentCount: (list) => new Set(list.map((r) => r.independenceKey ?? r.id)).size,
    mark: (ids, status) => Effect.sync(() => rows.forEach((r, i) => { if (ids.includes(r.id)) rows[i] = { ...r, status } })),
    idsStartingWith: (prefix, limit) => Effect.sync(() => rows.filter((r) => r.id.startsWith(prefix)).slice(0, limit).map((r) => r.id)),
    renameBundle: () => Effect.void
  }))
}

export interface Script {
  calls: number
  requests: Array<GenerationRequest>
}

export type Reply = ReadonlyArray<CandidateFile> | GenerationFailed | GenerationResult | { readonly rationale: string; readonly files: ReadonlyArray<CandidateFile> }

/** A scripted generator: `reply` answers each request; every call is counted (a cached answer would not be). */
export const scriptedGenerator = (reply: (request: GenerationRequest) => Reply, name = "test") => {
  const script: Script = { calls: 0, requests: [] }
  const layer = Layer.succeed(Generator, Generator.of({
    id: `scripted:${name}`,
    available: true,
    generate: (request) =>
      Effect.suspend(() => {
        script.calls++
        script.requests.push(request)
        const r = reply(request)
        if (r instanceof GenerationFailed) return Effect.fail(r)
        if ("_tag" in r) return Effect.succeed(r as GenerationResult)
        const files = Array.isArray(r) ? (r as ReadonlyArray<CandidateFile>) : (r as { files: ReadonlyArray<CandidateFile> }).files
        const rationale = Array.isArray(r) ? undefined : (r as { rationale: string }).rationale
        return Effect.succeed<GenerationResult>({ _tag: "Candidates", files, rationale, usage: { inputTokens: 100, outputTokens: 50 }, cached: false })
      })
  }))
  return { script, layer }
}
