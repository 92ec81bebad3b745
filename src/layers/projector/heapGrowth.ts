import * as v8 from "node:v8"
import { runInNewContext } from "node:vm"

/**
 * Plans from which a projection job bounds V8's heap growth: 20,000 items
 * peaked at 296 MB with V8's default, of which the live heap was ≈ 60 MB —
 * the rest was promoted garbage V8 let the old generation grow over (one
 * full collection in the whole build; spec 10 §2 asks ≤ 300 MB). Smaller
 * bundles stay well under the bound and keep the default's speed.
 */
export const BOUND_HEAP_PLANS = 10_000

let bounded = false

/**
 * Bounds the old generation's growth after each collection (factor 1.2, as
 * akm mcp does from its start) for the rest of the process, so the build
 * collects its garbage before it grows far past the live heap. V8 sets the
 * next limit only at a full collection, and the one before the job (during
 * the walk) already set it with the default factor, far up: one full
 * collection now (≈ 0.1 s at 20,000 items) sets it with the bound. Not undone
 * afterwards — a process that held a bundle this large keeps its memory down.
 */
export const boundHeapGrowth = (): void => {
  if (bounded) return
  bounded = true
  try {
    v8.setFlagsFromString("--heap-growing-percent=20")
    // gc() exists only in contexts made while --expose-gc is set; the flag is dropped again at once.
    v8.setFlagsFromString("--expose-gc")
    const collect = runInNewContext("gc") as unknown
    v8.setFlagsFromString("--no-expose-gc")
    if (typeof collect === "function") collect()
  } catch {
    // An engine without these flags grows as it always did.
  }
}
