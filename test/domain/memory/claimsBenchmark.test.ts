import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { claimCoverage } from "../../../src/domain/memory/Claims.js"
import { BenchmarkFormatError, parseBenchmark, scoreBenchmark } from "../../../src/domain/memory/claims/benchmark.js"

// R-MEM-4: unattended semantic retirement needs the claim checker to reach
// ≥ 0.95 precision on "covered" over the labelled benchmark in
// test/fixtures/claims/ (a false "covered" lets a retirement lose a claim).

const dir = fileURLToPath(new URL("../../fixtures/claims/", import.meta.url))
const pairs = readdirSync(dir)
  .filter((file) => /^pairs-.*\.yaml$/.test(file))
  .sort()
  .flatMap((file) => parseBenchmark(readFileSync(join(dir, file), "utf8"), file))

describe("claims benchmark (R-MEM-4)", () => {
  it("has at least 300 labelled pairs and 40 of each loss the seed names", () => {
    expect(pairs.length).toBeGreaterThanOrEqual(300)
    const count = (category: string) => pairs.filter((pair) => pair.label === "not-covered" && pair.category === category).length
    for (const category of ["number", "date", "negation", "qualifier", "unit", "entity"]) expect(count(category)).toBeGreaterThanOrEqual(40)
    expect(pairs.filter((pair) => pair.label === "covered").length).toBeGreaterThanOrEqual(100)
  })

  it("reaches precision ≥ 0.95 on covered, with useful recall", () => {
    const result = scoreBenchmark(pairs)
    const { tp, fp, tn, fn, precision, recall } = result.overall
    console.info(`claims benchmark: ${result.pairs} pairs, TP ${tp} FP ${fp} TN ${tn} FN ${fn}, precision ${precision}, recall ${recall}, ${result.ms} ms`)
    for (const [category, c] of Object.entries(result.byCategory)) console.info(`  ${category}: TP ${c.tp} FP ${c.fp} TN ${c.tn} FN ${c.fn}`)
    const falseCovered = result.mistakes.filter((mistake) => mistake.label === "not-covered")
    expect(precision, `false "covered": ${JSON.stringify(falseCovered, null, 2)}`).toBeGreaterThanOrEqual(0.95)
    // a checker that never says covered would be precise and useless: keep retirement possible
    expect(recall).toBeGreaterThanOrEqual(0.85)
    expect(tp + fp + tn + fn).toBe(pairs.length)
  })

  it("gives every uncovered claim a loss: the anchor kind, its value and one line", () => {
    for (const pair of pairs.filter((p) => p.label === "not-covered")) {
      for (const claim of claimCoverage(pair.source, pair.targets).filter((c) => !c.covered)) {
        expect(claim.loss, pair.id).toMatchObject({ kind: expect.any(String), detail: expect.stringMatching(/\S/) })
        expect(claim.reason).toBe(claim.loss!.detail)
      }
    }
  })
})

describe("claim coverage over the benchmark's texts", () => {
  const texts = [...new Set(pairs.flatMap((pair) => [pair.source, ...pair.targets]))]

  it("covers every text by itself", () => {
    const notSelfCovered = texts.filter((text) => claimCoverage(text, [text]).some((claim) => !claim.covered))
    expect(notSelfCovered).toEqual([])
  })

  it("answers the same for the same input, whatever ran before", () => {
    const pair = pairs[0]!
    const first = claimCoverage(pair.source, pair.targets)
    for (const other of pairs.slice(1, 40)) claimCoverage(other.source, other.targets)
    expect(claimCoverage(pair.source, pair.targets)).toEqual(first)
  })
})

describe("parseBenchmark", () => {
  it("rejects a file off the schema, naming the file and the group", () => {
    expect(() => parseBenchmark("groups: [ { id: a, source: x, cases: [ { label: maybe, category: c, target: y } ] } ]", "bad.yaml")).toThrow(
      new BenchmarkFormatError("bad.yaml: group a, case 1: `label` must be covered or not-covered (see test/fixtures/claims/README.md)")
    )
    expect(() => parseBenchmark("nope: 1", "bad.yaml")).toThrow(/bad.yaml: top level/)
    expect(() => parseBenchmark("groups: [ { id: a, source: x, cases: [] } ]", "bad.yaml")).toThrow(/group a/)
    expect(() => parseBenchmark(": : :\n  - [", "bad.yaml")).toThrow(/bad.yaml: not YAML/)
  })

  it("reads a list target as several surviving texts", () => {
    const [pair] = parseBenchmark("groups:\n  - id: g\n    source: s\n    cases:\n      - { label: covered, category: split, target: [a, b] }\n", "ok.yaml")
    expect(pair).toEqual({ id: "g#1", label: "covered", category: "split", source: "s", targets: ["a", "b"] })
  })
})
