/**
 * Cooperative time slices for every fiber (issue 28 item 4, spec 10 §2,
 * docs/decisions/0048-event-loop-stalls.md). Effect's default scheduler yields
 * a long-running fiber through a microtask (Promise.then) after 2,048 steps,
 * so a program made of synchronous steps — file writes, SQLite statements, a
 * tree walk — runs from start to end without the event loop turning: an MCP
 * server or an embedding program cannot answer, and its timers stall, for the
 * whole operation (remember blocked for 0.3–0.6 s in one piece). This
 * scheduler keeps the default's order and fairness but, once the current
 * macrotask has run longer than SLICE_MS, runs the next step after a
 * setImmediate, so timers and I/O callbacks run in between. A single
 * synchronous step longer than a slice still blocks; those check
 * `yieldIfSpent` (domain/EventLoopSlice.ts) inside their loops.
 */
import { FiberRef, Layer, Scheduler } from "effect"
import type { RuntimeFiber } from "effect/Fiber"
import { afterLoopTurn, EventLoopSlicing, SLICE_MS, sliceSpent } from "../../domain/EventLoopSlice.js"

/** Check the clock only every this many steps: performance.now() is cheap, not free. */
const CHECK_EVERY = 64

/** As the default scheduler (microtasks, a macrotask past 2,048 nested ones), but a setImmediate once the slice is spent. */
const runner = Scheduler.SchedulerRunner.cached((depth, drain) => {
  if (depth >= 2048 || sliceSpent()) afterLoopTurn(() => drain(0))
  else void Promise.resolve(undefined).then(() => drain(depth + 1))
})

/** The default's op-count rule, plus a yield every CHECK_EVERY steps once the slice is spent. */
const shouldYield = (fiber: RuntimeFiber<unknown, unknown>): number | false => {
  const byCount = Scheduler.defaultShouldYield(fiber)
  if (byCount !== false) return byCount
  return fiber.currentOpCount % CHECK_EVERY === 0 && sliceSpent() ? fiber.getFiberRef(FiberRef.currentSchedulingPriority) : false
}

/** The time-sliced scheduler (see the file comment). */
export const slicedScheduler: Scheduler.Scheduler = Scheduler.make(
  (task, priority, fiber) => runner(fiber).scheduleTask(task, priority),
  shouldYield
)

/** Installs the time-sliced scheduler, and turns on the yields of long loops, for every fiber of a runtime built with this layer. */
export const EventLoopSlices: Layer.Layer<never> = Layer.merge(Layer.setScheduler(slicedScheduler), Layer.locallyScoped(EventLoopSlicing, SLICE_MS))
