import { Context } from "effect"

/**
 * The fault-injecting seam of the Transaction engine (spec 00 §3.2, R-TX-10).
 * The engine reports each phase it reaches (`after-lease`, `after-journal`,
 * `backup`, `temp-written`, `write`, `delete`, `after-writes`,
 * `after-commit-mark`, `after-git-commit`, `after-journal-removed`,
 * `after-retire-record`, `after-publish`). The shipped layer does nothing;
 * the crash tests' child process provides one that SIGKILLs itself (or
 * pauses) at a chosen point — test/support/crashPointsFromEnv.ts.
 *
 * `reach` is synchronous on purpose: the engine's file steps are synchronous
 * system calls, and a crash must land exactly between two of them.
 */
export class CrashPoints extends Context.Tag("akm/CrashPoints")<CrashPoints, {
  readonly reach: (point: string) => void
}>() {}
