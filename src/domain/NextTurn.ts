import { Effect } from "effect"

/**
 * One turn of the event loop: setImmediate runs after pending I/O and timers
 * get their turn, while a fiber's own yields (Effect.yieldNow) stay in
 * microtasks. Long synchronous work split by it never blocks an embedding
 * program's loop for the whole of it (issue 28 item 4).
 */
export const nextTurn = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})
