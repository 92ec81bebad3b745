import { Either, ParseResult, Schema } from "effect"
import type { CandidateFile, GenerationRequest } from "../../services/Generator.js"

/**
 * What a generator is told and what it must answer (spec 06 §5). The prompt
 * is built only from the request — the adapter's authoring context, the
 * evidence and the targets' text, all redacted by the recipe (R-GEN-1); the
 * model layers redact the finished text once more as a last guard.
 */

export interface Prompt {
  readonly system: string
  readonly user: string
}

/** The structured answer every model must give (JSON schema below, strict-mode compatible). */
export const CandidateOutput = Schema.Struct({
  files: Schema.NonEmptyArray(Schema.Struct({
    path: Schema.String.pipe(Schema.minLength(1)),
    content: Schema.NullOr(Schema.String)
  })),
  rationale: Schema.optional(Schema.String)
})
export type CandidateOutput = typeof CandidateOutput.Type

export const CANDIDATE_SCHEMA_NAME = "candidate_files"

/** JSON schema of CandidateOutput as providers take it (OpenAI strict mode: every key required, no extras). */
export const candidateJsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["files", "rationale"],
  properties: {
    files: {
      type: "array",
      description: "Every file to write: its path relative to the bundle root and its full new content (null deletes it).",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["path", "content"],
        properties: {
          path: { type: "string" },
          content: { type: ["string", "null"] }
        }
      }
    },
    rationale: { type: "string", description: "One short paragraph: what changed and which evidence it answers." }
  }
} as const

const decodeOutput = Schema.decodeUnknownEither(CandidateOutput)

/** The model's answer text → candidate files, or why it is unusable ("malformed"). */
export const parseCandidateOutput = (text: string): Either.Either<{ files: ReadonlyArray<CandidateFile>; rationale?: string | undefined }, string> => {
  const trimmed = stripFence(text.trim())
  if (trimmed === "") return Either.left("the answer was empty")
  let json: unknown
  try {
    json = JSON.parse(trimmed)
  } catch {
    return Either.left("the answer was not JSON")
  }
  return decodeOutput(json).pipe(
    Either.mapLeft((error) => {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      return `the answer does not match the candidate schema${issue === undefined ? "" : ` at ${issue.path.length === 0 ? "the top" : issue.path.join(".")}: ${issue.message}`}`
    }),
    Either.map((output) => ({ files: output.files, ...(output.rationale === undefined || output.rationale === "" ? {} : { rationale: output.rationale }) }))
  )
}

/** Some local models wrap JSON in a ```json fence even when asked not to. */
const stripFence = (text: string): string => {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text)
  return fenced?.[1] ?? text
}

const fence = (text: string): string => {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length))
  const ticks = "`".repeat(longest + 1)
  return `${ticks}\n${text}\n${ticks}`
}

/** The request as Markdown sections: the user message of a model and the body of an agent's TASK.md. */
export const requestSections = (request: GenerationRequest): string => {
  const { authoring } = request
  const parts: Array<string> = [`## Task (${request.recipe})`, request.instructions]
  if (authoring.instructions !== "") parts.push(`## How this bundle is written (adapter ${authoring.adapter})`, authoring.instructions)
  if (authoring.constraints.length > 0) parts.push("## Constraints", authoring.constraints.map((c) => `- ${c}`).join("\n"))
  for (const guide of authoring.guidance) parts.push(`## Guidance: ${guide.path}`, guide.text)
  if (authoring.examples.length > 0) parts.push("## Examples", ...authoring.examples.map(fence))
  parts.push(
    "## Evidence",
    request.evidence.length === 0
      ? "(none)"
      : request.evidence.map((e) => `- [${e.kind}]${e.ref === undefined ? "" : ` ${e.ref}`}: ${e.note}${e.query === undefined ? "" : ` (query: "${e.query}")`}`).join("\n")
  )
  for (const target of request.targets) {
    parts.push(`## Target: ${target.path}${target.ref === undefined ? "" : ` (${target.ref})`}`, target.content === null ? "(does not exist yet; you may create it)" : fence(target.content))
  }
  parts.push("## Paths you may write (relative to the bundle root)", request.allowedPaths.map((p) => `- ${p}`).join("\n"))
  return parts.join("\n\n")
}

export const buildPrompt = (request: GenerationRequest): Prompt => ({
  system: [
    "You revise and write knowledge items of an akm bundle (Markdown files with frontmatter).",
    "Change only what the evidence justifies; keep every fact that the evidence does not contradict; never add keywords that do not describe the item.",
    "Answer with one JSON object and nothing else: {\"files\": [{\"path\": \"<path relative to the bundle root>\", \"content\": \"<the full new file>\"}], \"rationale\": \"<one short paragraph>\"}.",
    "Write only the paths listed under \"Paths you may write\"; give each file's complete content, not a diff."
  ].join("\n"),
  user: requestSections(request)
})
