import { runInNewContext } from "node:vm"
import { describe, expect, it } from "vitest"
import { BOUND_HEAP_PLANS, boundHeapGrowth } from "../../src/layers/projector/heapGrowth.js"

// docs/decisions/0044: a large projection job bounds V8's heap growth once, with one full collection.
describe("boundHeapGrowth", () => {
  it("runs once, collects, and leaves no gc() in contexts made afterwards", () => {
    expect(BOUND_HEAP_PLANS).toBeGreaterThan(5_000)
    expect(() => {
      boundHeapGrowth()
      boundHeapGrowth()
    }).not.toThrow()
    expect(runInNewContext("typeof gc")).toBe("undefined")
  })
})
