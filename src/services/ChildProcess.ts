import { Context, type Effect } from "effect"

/** A command that could not be started (not found, not executable): names the program, never the environment. */
export class ChildNotStarted {
  readonly _tag = "ChildNotStarted"
  constructor(readonly program: string, readonly message: string, readonly hint: string) {}
}

/**
 * Runs one program for `akm env run`: argv executed directly (no shell, so
 * no expansion of anything), stdio inherited, the environment given — the
 * only place injected values go (R-RT-7). Resolves to the exit code the
 * caller forwards (128 + n for a signal).
 */
export class ChildProcess extends Context.Tag("akm/ChildProcess")<ChildProcess, {
  /** `inject` is added over akm's own environment, for the child only; `stdin` (a task's prompt) is piped in, else inherited. */
  readonly run: (argv: ReadonlyArray<string>, inject: Readonly<Record<string, string>>, cwd: string, options?: { readonly stdin?: string }) => Effect.Effect<number, ChildNotStarted>
}>() {}
