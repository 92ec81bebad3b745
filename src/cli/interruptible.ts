import { Effect, Fiber, type Exit } from "effect"

/**
 * Runs a command's program as a fiber that SIGINT and SIGTERM interrupt, and
 * says which signal did: the caller maps it to 130 or 143 (spec 09 §2). Shared
 * by the full CLI (main.ts) and the search fast path (fast/search.ts).
 */
export const runInterruptible = async <A, E>(program: Effect.Effect<A, E>): Promise<{ readonly exit: Exit.Exit<A, E>; readonly signal: "SIGINT" | "SIGTERM" | undefined }> => {
  const fiber = Effect.runFork(program)
  let signal: "SIGINT" | "SIGTERM" | undefined
  const on = (name: "SIGINT" | "SIGTERM") => () => {
    signal = name
    Effect.runFork(Fiber.interrupt(fiber))
  }
  const onSigint = on("SIGINT")
  const onSigterm = on("SIGTERM")
  process.once("SIGINT", onSigint)
  process.once("SIGTERM", onSigterm)
  try {
    return { exit: await Effect.runPromise(Fiber.await(fiber)), signal }
  } finally {
    process.off("SIGINT", onSigint)
    process.off("SIGTERM", onSigterm)
  }
}
