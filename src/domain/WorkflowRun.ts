import type { WorkflowPlan } from "./WorkflowPlan.js"

/**
 * A workflow run as state.db keeps it (spec 07 §2, docs/decisions/0025):
 * the frozen plan, the run's status and each step's durable state.
 */

/** running: a process is driving it (or died doing so: resumable); waiting: a gate or prompt needs the operator or agent. */
export type RunStatus = "running" | "waiting" | "paused" | "failed" | "done" | "abandoned"

/** running while an attempt is under way: found so on resume, the attempt was cut off and runs again. */
export type StepStatus = "pending" | "running" | "waiting" | "done" | "failed"

/**
 * Everything a run needs, frozen when it starts (R-RT-4): editing or updating
 * the workflow file never changes it. Stored as canonical JSON with its
 * sha256; resume refuses a frozen plan whose hash no longer matches (R-RT-5).
 */
export interface FrozenRun {
  readonly format: 1
  readonly workflow: string
  readonly alias?: string | undefined
  readonly bundle: string
  /** The installed revision (git commit, npm version …) from akm.lock; null for a folder bundle. */
  readonly bundleRevision: string | null
  readonly adapter: { readonly id: string; readonly version: string }
  /** sha256 of the workflow file's bytes when the run started. */
  readonly digest: string
  readonly plan: WorkflowPlan
  readonly planHash: string
  /** Resolved params: the operator's, the binding's and the defaults (never secrets: those travel as env references). */
  readonly params: Readonly<Record<string, string>>
  /** KEY → `env:VAR` / `secret:<ref>` of the binding: identities, never values. */
  readonly env: Readonly<Record<string, string>>
  /** The directory relative step `cwd`s resolve against: where `akm workflow run` was started. */
  readonly workdir: string
}

export interface StepState {
  readonly index: number
  readonly id: string
  readonly status: StepStatus
  readonly attempts: number
  readonly exitCode?: number | undefined
  /** A short, redacted line: the end of the output, or why it waits or failed. */
  readonly summary?: string | undefined
  readonly startedAt?: string | undefined
  readonly finishedAt?: string | undefined
  /** The process id of the attempt's program while it runs: resume refuses to start a second copy beside a live one. */
  readonly pid?: number | undefined
}

export interface RunRecord {
  readonly id: string
  readonly workflow: string
  readonly status: RunStatus
  /** The frozen plan as stored (canonical JSON) and the hash recorded with it. */
  readonly frozen: string
  readonly frozenHash: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly message?: string | undefined
  readonly steps: ReadonlyArray<StepState>
}
