import { Context, type Effect } from "effect"
import type { ChildNotStarted } from "./ChildProcess.js"

export interface StepRunOptions {
  readonly cwd: string
  /** Added over akm's own environment, for the child only (env binding values). */
  readonly inject: Readonly<Record<string, string>>
  /** Written to the child's stdin, which is then closed (a prompt for the agent command); else stdin is empty. */
  readonly stdin?: string | undefined
  /** The child is stopped (SIGTERM, then SIGKILL) after this long. */
  readonly timeoutMs?: number | undefined
  /** The most output kept: the first and the last half of it, the middle dropped. */
  readonly maxCapture: number
  /** Told the child's pid once it started (the caller records it); its failures are its own. */
  readonly onSpawn?: ((pid: number) => Effect.Effect<void>) | undefined
}

export interface StepRunResult {
  /** The exit code, 128 + n for a signal. */
  readonly exit: number
  readonly timedOut: boolean
  /** stdout and stderr interleaved as they came, bounded by maxCapture (UTF-8, lossy at the cut). */
  readonly output: string
  /** Every byte the child wrote, kept or not. */
  readonly bytes: number
}

/**
 * Runs one workflow step's program (spec 07 §2): argv executed directly (no
 * shell), output captured but bounded so a step printing gigabytes costs a
 * fixed amount of memory, an optional time limit. Interrupting the effect
 * (akm got SIGINT/SIGTERM) stops the child and waits for it.
 */
export class StepProcess extends Context.Tag("akm/StepProcess")<StepProcess, {
  readonly run: (argv: ReadonlyArray<string>, options: StepRunOptions) => Effect.Effect<StepRunResult, ChildNotStarted>
  /** Whether a process with this pid still runs on this host (a step program that outlived a killed akm). */
  readonly isRunning: (pid: number) => Effect.Effect<boolean>
}>() {}
