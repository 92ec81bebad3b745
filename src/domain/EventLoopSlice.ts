/**
 * The event-loop slice clock (issue 28 item 4, docs/decisions/0048-event-loop-stalls.md):
 * how long the current macrotask has run, and an Effect that lets the loop turn.
 * Long synchronous loops (a tree walk, a pass over 20,000 plans) check
 * `yieldIfSpent` every few dozen steps, so timers and I/O callbacks of an
 * MCP server or an embedding program run at least every few milliseconds.
 * The time-sliced scheduler (layers/runtime/EventLoopSlices.ts) reads the same clock.
 */
import { Effect, FiberRef } from "effect"

/**
 * How long a slice of the running program lasts, in ms, or undefined when its
 * long loops never yield (the default: a program run with Effect.runSync or a
 * runtime without the EventLoopSlices layer stays synchronous). The
 * EventLoopSlices layer, which every live runtime has, sets SLICE_MS.
 */
export const EventLoopSlicing: FiberRef.FiberRef<number | undefined> = FiberRef.unsafeMake<number | undefined>(undefined)

/** A macrotask runs at most about this long before the work waits for the event loop. */
export const SLICE_MS = 4

/**
 * When the current slice began: reset each time this module lets the loop
 * turn. A slice that began earlier (the loop turned for other reasons) only
 * makes the next yield come sooner than needed, which costs one setImmediate.
 */
let sliceStart = performance.now()

/** True when the current macrotask has run `slice` ms or more. */
export const sliceSpent = (slice: number = SLICE_MS): boolean => performance.now() - sliceStart >= slice

/** Runs `task` after the event loop has turned once (timers and I/O callbacks first), starting a new slice. */
export const afterLoopTurn = (task: () => void): void => {
  setImmediate(() => {
    sliceStart = performance.now()
    task()
  })
}

/** Lets the event loop turn once, whatever the fiber's scheduler; interruptible while it waits. */
export const nextSlice: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => {
    sliceStart = performance.now()
    resume(Effect.void)
  })
  return Effect.sync(() => clearImmediate(handle))
})

/** `nextSlice` when slicing is on and the slice is spent, else nothing: cheap enough to call every few dozen steps. */
export const yieldIfSpent: Effect.Effect<void> = FiberRef.getWith(EventLoopSlicing, (slice) => (slice !== undefined && sliceSpent(slice) ? nextSlice : Effect.void))

/**
 * Whether a long loop's step `index` checks the slice: every `every`-th step
 * (a power of two; 64 unless the steps are very short), so the clock is read a
 * few times per slice. Written `if (sliceEnds(i)) yield* yieldIfSpent`: asking
 * first spares a loop over 20,000 items 20,000 passes of `Effect.void` through
 * the fiber (≈ 20 ms of CPU in a fresh process, where a write's refresh runs).
 */
export const sliceEnds = (index: number, every: number = 64): boolean => (index & (every - 1)) === every - 1
