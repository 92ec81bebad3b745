import * as v8 from "node:v8"

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
 * akm mcp does from its start) for the rest of the process: V8 reads the
 * factor at every collection, so the build collects its garbage before it
 * grows far past the live heap. Not undone afterwards — a process that held
 * a bundle this large keeps its memory down from then on.
 */
export const boundHeapGrowth = (): void => {
  if (bounded) return
  bounded = true
  try {
    v8.setFlagsFromString("--heap-growing-percent=20")
  } catch {
    // An engine without the flag grows as it always did.
  }
}
