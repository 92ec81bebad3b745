import { Context, type Effect } from "effect"

/**
 * Progress of long steps (index, clone, download, crawl). Draws only when
 * stderr is a TTY and not --quiet (R-BUN-4); otherwise every call is a no-op,
 * so programs report progress unconditionally.
 */
export class Progress extends Context.Tag("akm/Progress")<Progress, {
  /** Starts or updates a task line, e.g. ("index notes", 40, 120). */
  readonly update: (task: string, done: number, total?: number) => Effect.Effect<void>
  /** Ends a task line with a final message. */
  readonly done: (task: string, message?: string) => Effect.Effect<void>
  /** A warning or hint for the human; always stderr, silenced by --quiet. */
  readonly warn: (message: string) => Effect.Effect<void>
}>() {}
