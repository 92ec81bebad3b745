import { Context, type Effect } from "effect"
import type { AuthoringContext } from "../domain/Adapter.js"
import type { Evidence } from "../domain/Evidence.js"

/** One target file as the run's frozen snapshot holds it. */
export interface GeneratorTarget {
  readonly bundle: string
  readonly path: string
  /** null = a file the recipe may create. */
  readonly content: string | null
  readonly ref?: string | undefined
}

/**
 * What a recipe asks a generator for: redacted inputs only (R-GEN-1) — the
 * adapter's authoring context, the evidence, the targets' current text.
 */
export interface GenerationRequest {
  readonly recipe: "revise" | "learn" | "consolidate"
  /** The run's fingerprint for this attempt: the response-cache key (R-GEN-2). */
  readonly fingerprint: string
  readonly authoring: AuthoringContext
  readonly evidence: ReadonlyArray<Evidence>
  readonly targets: ReadonlyArray<GeneratorTarget>
  /** The bundle the candidate is written to (learn has no target file yet, so it cannot come from targets). */
  readonly bundle?: string | undefined
  /** Plain-language task for the model or the agent (built by the recipe). */
  readonly instructions: string
  /** Paths (relative to the bundle root) the candidate may write; anything else fails Level 1. */
  readonly allowedPaths: ReadonlyArray<string>
  readonly timeoutMs?: number | undefined
  /** The improve run asking (recorded in an agent work packet's manifest). */
  readonly runId?: string | undefined
}

/** A candidate file: full new content of a path the request allowed (null deletes). */
export interface CandidateFile {
  readonly path: string
  readonly content: string | null
}

export type GenerationResult =
  | {
    readonly _tag: "Candidates"
    readonly files: ReadonlyArray<CandidateFile>
    /** The generator's own summary of the change, shown in review (never used to decide, R-IMP-8). */
    readonly rationale?: string | undefined
    readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd?: number | undefined }
    /** Served from the response cache: no model call was made. */
    readonly cached: boolean
  }
  /** The agent generator: a work packet waiting for `akm proposal submit <id>`. */
  | { readonly _tag: "Packet"; readonly id: string; readonly dir: string }

/** Why generation produced nothing usable: typed, so a run records it and goes on. */
export class GenerationFailed {
  readonly _tag = "GenerationFailed"
  constructor(
    readonly reason: "no-generator" | "timeout" | "http" | "malformed" | "too-large" | "refused",
    readonly message: string
  ) {}
}

/**
 * The model seam of Improve (spec 06 §5): openai-compatible, anthropic, agent
 * (work packets) and scripted layers. A generator only proposes file
 * contents; nothing it returns — no score, no confidence — ever decides
 * whether a change is accepted (R-IMP-8).
 */
export class Generator extends Context.Tag("akm/Generator")<Generator, {
  /** "openai-compatible:<model>@<baseUrl host>", "scripted:<name>", "none": part of the fingerprint. */
  readonly id: string
  /** False for the "none" layer: semantic recipes report "no generator" and mechanical work still runs (R-GEN-3). */
  readonly available: boolean
  readonly generate: (request: GenerationRequest) => Effect.Effect<GenerationResult, GenerationFailed>
}>() {}
