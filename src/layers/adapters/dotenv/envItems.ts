import type { ProjectResult } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { makeProjection, nameFromFile } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { isDangerousEnvKey } from "../../../domain/DangerousEnvKeys.js"
import { parseEnvFile, type EnvKey } from "./envFile.js"

/**
 * Env and secret items, shared by the dotenv and akm adapters. An env item
 * carries key names and public descriptions, never values (R-RT-7); a secret
 * item is its file name, and the file is never read.
 */
export const projectEnvFile = (path: string, text: string, book: RuleBook): ProjectResult => {
  const env = parseEnvFile(text)
  const diagnostics: Array<Diagnostic> = []
  for (const key of env.keys) {
    if (isDangerousEnvKey(key.name)) {
      diagnostics.push(...book.report("dangerous-env-key", path, `${key.name} changes how programs load or run; \`akm env run\` refuses it for bundles from git, npm or website sources`, { line: key.line }))
    }
  }
  for (const problem of env.problems) {
    // Messages name keys and lines only: the offending text may be a value.
    if (problem.kind === "invalid-line") diagnostics.push(...book.report("invalid-env-line", path, `line ${problem.line} is neither a KEY=value assignment nor a # comment`, { line: problem.line }))
    else if (problem.kind === "unterminated-value") diagnostics.push(...book.report("invalid-env-line", path, `the quoted value of ${problem.name ?? "a key"} is never closed`, { line: problem.line }))
    else diagnostics.push(...book.report("duplicate-env-key", path, `${problem.name ?? "a key"} is assigned again (first on line ${problem.firstLine ?? 0})`, { line: problem.line }))
  }
  // One entry per key; a repeated key keeps its first description.
  const byName = new Map<string, EnvKey>()
  for (const key of env.keys) {
    const seen = byName.get(key.name)
    if (seen === undefined || (seen.description === undefined && key.description !== undefined)) byName.set(key.name, key)
  }
  const keys = [...byName.values()]
  const projection = makeProjection(
    {
      type: "env",
      name: nameFromFile(path),
      description: env.description,
      hints: keys.map((key) => key.name),
      content: keys.map((key) => (key.description === undefined ? key.name : `${key.name}: ${key.description}`)).join("\n")
    },
    { extra: { keys: keys.map((key) => (key.description === undefined ? { name: key.name } : { name: key.name, description: key.description })) } }
  )
  return { projection, diagnostics }
}

export const projectSecret = (path: string): ProjectResult => ({
  projection: makeProjection({ type: "secret", name: path.split("/").pop() ?? path }),
  diagnostics: []
})
