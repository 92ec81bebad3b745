import { Effect } from "effect"
import type { ValidateContext } from "../../../domain/Adapter.js"
import { sha256Hex } from "../../../domain/Digest.js"
import type { ExportKind, RuntimeExport } from "../../../domain/RuntimeExport.js"
import { parseEnvFile } from "./envFile.js"

/**
 * An env file as a runtime export (spec 07 §1): its digest covers the whole
 * file, values included, so a binding notices any upstream change; its
 * definition — what a refused run diffs — holds key names and public
 * descriptions only (R-RT-7).
 */
export const envExport = (bundle: string, conceptId: string, text: string): RuntimeExport => {
  const env = parseEnvFile(text)
  const names = [...new Set(env.keys.map((key) => key.name))]
  const definition = [
    ...(env.description === undefined ? [] : [`# ${env.description}`, ""]),
    ...env.keys.flatMap((key) => [...(key.description === undefined ? [] : [`# ${key.description}`]), key.name])
  ].join("\n")
  return { id: conceptId, kind: "environment", ref: `${bundle}//${conceptId}`, digest: sha256Hex(text), requirements: { env: names }, definition: `${definition}\n` }
}

/** A non-env export whose definition is its file's text (a workflow, a task, a script). */
export const textExport = (bundle: string, conceptId: string, kind: ExportKind, text: string, requirements: RuntimeExport["requirements"] = {}): RuntimeExport => ({
  id: conceptId,
  kind,
  ref: `${bundle}//${conceptId}`,
  digest: sha256Hex(text),
  requirements,
  definition: text
})

/** Reads one file through ctx and makes its export; an unreadable file is no export. */
export const exportOfFile = (ctx: ValidateContext, path: string, make: (text: string) => RuntimeExport): Effect.Effect<ReadonlyArray<RuntimeExport>> =>
  ctx.readText(path).pipe(Effect.map((text) => [make(text)]), Effect.orElseSucceed(() => []))
