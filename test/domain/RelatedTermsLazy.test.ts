import { describe, expect, it } from "vitest"
import { buildRelated, relatedStems } from "../../src/domain/RelatedTerms.js"

/**
 * The related-terms table is built per two-prefix prefix on first use, so a
 * command's start stems a few prefixes' words, not the whole vocabulary
 * (docs/decisions/0055-read-command-startup.md). The lazy table must answer
 * exactly as the whole one: every entry under the prefix its key starts with.
 */
describe("related terms: built per prefix", () => {
  const whole = buildRelated()

  it("answers every stem of the whole table with the same sequences, in the same order", () => {
    expect(whole.size).toBeGreaterThan(100)
    for (const [stem, sequences] of whole) expect(relatedStems(stem), stem).toEqual(sequences)
  })

  it("puts each entry under its key's first two prefixes, and holds nothing the whole table lacks", () => {
    const prefixes = new Set([...whole.keys()].map((stem) => stem.slice(0, 2)))
    const lazy = [...prefixes].flatMap((prefix) => [...buildRelated(prefix)].map(([stem, sequences]) => [stem, sequences, prefix] as const))
    expect(new Map(lazy.map(([stem, sequences]) => [stem, sequences]))).toEqual(whole)
    for (const [stem, , prefix] of lazy) expect(stem.slice(0, 2), stem).toBe(prefix)
  })

  it("has nothing for an empty stem", () => {
    expect(relatedStems("")).toEqual([])
  })
})
