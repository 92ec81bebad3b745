import { describe, expect, it } from "vitest"
import { blobScorer, dot, fromBlob, toBlob, unit } from "../../src/domain/Vectors.js"

describe("stored vectors (R-SRCH-4)", () => {
  it("round-trip through a BLOB at unit length, and score by dot product from unaligned bytes", () => {
    const a = unit([3, 4, 0])
    expect(Array.from(a)).toEqual([0.6000000238418579, 0.800000011920929, 0])
    expect(Array.from(fromBlob(toBlob(a)))).toEqual(Array.from(a))
    const unaligned = Buffer.concat([Buffer.from([9]), toBlob(unit([0, 1, 0]))]).subarray(1)
    expect(blobScorer(a)(unaligned)).toBeCloseTo(dot(a, unit([0, 1, 0])), 6)
    expect(blobScorer(a)(toBlob(unit([1])))).toBeCloseTo(0.6, 6)
    expect(Array.from(unit([0, 0]))).toEqual([0, 0])
  })
})
