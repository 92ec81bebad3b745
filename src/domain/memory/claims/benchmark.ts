import { parse as parseYaml } from "yaml"
import { type CoverageOptions } from "./coverage.js"
import { claimCoverage } from "../Claims.js"

/**
 * The claim-coverage benchmark (spec 06 §8.4, R-MEM-4): labelled source/target
 * pairs from test/fixtures/claims/*.yaml (schema in its README.md) scored
 * against the checker. "Positive" is "covered": a false positive is a claim
 * the checker would let a retirement lose.
 */

export type BenchmarkLabel = "covered" | "not-covered"

export interface BenchmarkPair {
  /** `<group id>#<case position from 1>` */
  readonly id: string
  readonly label: BenchmarkLabel
  /** The transformation (covered) or the loss (not-covered). */
  readonly category: string
  readonly source: string
  readonly targets: ReadonlyArray<string>
}

export interface Confusion {
  readonly tp: number
  readonly fp: number
  readonly tn: number
  readonly fn: number
  /** tp / (tp + fp); 1 when nothing was called covered. */
  readonly precision: number
  /** tp / (tp + fn); 1 when nothing is covered. */
  readonly recall: number
}

export interface BenchmarkMistake {
  readonly id: string
  readonly label: BenchmarkLabel
  readonly category: string
  /** The checker's reason for its verdict (the first uncovered claim's, when it said not covered). */
  readonly reason: string
}

export interface BenchmarkResult {
  readonly pairs: number
  readonly overall: Confusion
  /** Keyed `covered/<category>` or `not-covered/<category>`. */
  readonly byCategory: Readonly<Record<string, Confusion>>
  readonly mistakes: ReadonlyArray<BenchmarkMistake>
  readonly ms: number
}

/** A benchmark file that does not follow the schema: names the file, the group and what is wrong. */
export class BenchmarkFormatError extends Error {
  override readonly name = "BenchmarkFormatError"
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** Reads one `pairs-*.yaml` file's text; `file` is only used in error messages. */
export const parseBenchmark = (text: string, file: string): ReadonlyArray<BenchmarkPair> => {
  const fail = (where: string, what: string): never => {
    throw new BenchmarkFormatError(`${file}: ${where}: ${what} (see test/fixtures/claims/README.md)`)
  }
  let document: unknown
  try {
    document = parseYaml(text)
  } catch (error) {
    fail("not YAML", error instanceof Error ? error.message : String(error))
  }
  if (!isRecord(document) || !Array.isArray(document["groups"])) return fail("top level", "expected a `groups:` list")
  const pairs: Array<BenchmarkPair> = []
  document["groups"].forEach((group: unknown, g) => {
    if (!isRecord(group)) return fail(`group ${g + 1}`, "expected a mapping")
    const id = group["id"]
    if (typeof id !== "string" || id === "") return fail(`group ${g + 1}`, "`id` must be a non-empty string")
    const source = group["source"]
    if (typeof source !== "string" || source.trim() === "") return fail(`group ${id}`, "`source` must be a non-empty string")
    const cases = group["cases"]
    if (!Array.isArray(cases) || cases.length === 0) return fail(`group ${id}`, "`cases` must be a non-empty list")
    cases.forEach((entry: unknown, c) => {
      const where = `group ${id}, case ${c + 1}`
      if (!isRecord(entry)) return fail(where, "expected a mapping")
      const label = entry["label"]
      if (label !== "covered" && label !== "not-covered") return fail(where, "`label` must be covered or not-covered")
      const category = entry["category"]
      if (typeof category !== "string" || category === "") return fail(where, "`category` must be a non-empty string")
      const target = entry["target"]
      const targets = typeof target === "string" ? [target] : target
      if (!Array.isArray(targets) || targets.length === 0 || !targets.every((t) => typeof t === "string")) {
        return fail(where, "`target` must be a string or a list of strings")
      }
      pairs.push({ id: `${id}#${c + 1}`, label, category, source, targets: targets as ReadonlyArray<string> })
    })
  })
  const seen = new Set<string>()
  for (const pair of pairs) {
    if (seen.has(pair.id)) fail(pair.id.split("#")[0]!, "duplicate group id")
    seen.add(pair.id)
  }
  return pairs
}

const confusion = (tp: number, fp: number, tn: number, fn: number): Confusion => ({
  tp,
  fp,
  tn,
  fn,
  precision: tp + fp === 0 ? 1 : round(tp / (tp + fp)),
  recall: tp + fn === 0 ? 1 : round(tp / (tp + fn))
})

const round = (value: number): number => Math.round(value * 1000) / 1000

/** Runs the checker on every pair and counts its verdicts against the labels. */
export const scoreBenchmark = (
  pairs: ReadonlyArray<BenchmarkPair>,
  options: CoverageOptions = {},
  now: () => number = () => performance.now()
): BenchmarkResult => {
  const started = now()
  const counts = new Map<string, { tp: number; fp: number; tn: number; fn: number }>()
  const total = { tp: 0, fp: 0, tn: 0, fn: 0 }
  const mistakes: Array<BenchmarkMistake> = []
  for (const pair of pairs) {
    const coverage = claimCoverage(pair.source, pair.targets, options)
    const predicted = coverage.every((claim) => claim.covered)
    const key = `${pair.label}/${pair.category}`
    const bucket = counts.get(key) ?? { tp: 0, fp: 0, tn: 0, fn: 0 }
    const cell = pair.label === "covered" ? (predicted ? "tp" : "fn") : predicted ? "fp" : "tn"
    bucket[cell]++
    total[cell]++
    counts.set(key, bucket)
    if (cell === "fp" || cell === "fn") {
      const uncovered = coverage.find((claim) => !claim.covered)
      mistakes.push({
        id: pair.id,
        label: pair.label,
        category: pair.category,
        reason: uncovered === undefined ? "every claim covered" : `"${uncovered.claim.text}": ${uncovered.reason}`
      })
    }
  }
  const byCategory = Object.fromEntries(
    [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, c]) => [key, confusion(c.tp, c.fp, c.tn, c.fn)])
  )
  return {
    pairs: pairs.length,
    overall: confusion(total.tp, total.fp, total.tn, total.fn),
    byCategory,
    mistakes,
    ms: Math.round((now() - started) * 10) / 10
  }
}
