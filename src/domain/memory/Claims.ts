import { analyseClaim, anchorsOf, type ClaimAnalysis, type ClaimAnchors } from "./claims/anchors.js"
import { type ClaimLoss, type CoverageOptions, DEFAULT_MIN_OVERLAP, DEFAULT_WINDOW, lossesOf, overlapOf, windowOf } from "./claims/coverage.js"
import { splitClaimTexts } from "./claims/split.js"

/**
 * Claims and their coverage (spec 06 §8, R-MEM-3/4): a memory may be retired
 * only when every claim it makes is accounted for by what survives. This file
 * is the contract between the memory lifecycle and the claim extractor; the
 * extractor and checker behind it are deterministic (no model), and their
 * precision on "covered" is measured on the labelled benchmark in
 * test/fixtures/claims/ (docs/memory.md, "Claims and coverage").
 *
 * A claim is a sentence, a `;` clause, a bullet or a table row. It is covered
 * by one target claim, or by a few adjacent ones read together, only when its
 * numbers (with units), dates, negations, qualifiers and names all appear
 * there exactly and enough of its stemmed content words do too.
 */

export type { ClaimAnchors } from "./claims/anchors.js"
export type { ClaimLoss, CoverageOptions } from "./claims/coverage.js"

/** One atomic statement of a memory: a sentence, a bullet, or a table row. */
export interface Claim {
  /** Position in the source, from 0, in reading order. */
  readonly index: number
  /** The statement as written (markdown syntax stripped, whitespace collapsed). */
  readonly text: string
  /** What must survive exactly for the claim to count as covered. */
  readonly anchors?: ClaimAnchors
  /** Its stemmed content words. */
  readonly words?: ReadonlyArray<string>
}

/** Why a claim is or is not covered; `reason` is one short human line. */
export interface ClaimCoverage {
  readonly claim: Claim
  readonly covered: boolean
  /** The index (into the targets) of the text that covers it. */
  readonly coveredBy?: number
  readonly reason: string
  /** For an uncovered claim: what the closest target claim lost. */
  readonly loss?: ClaimLoss
  /** The covering (or closest) target claims, as indexes into that target's claims. */
  readonly targetClaims?: ReadonlyArray<number>
}

/** Analyses by claim text: consolidation compares the same sentences against many candidates. */
const analyses = new Map<string, ClaimAnalysis>()
const analyse = (text: string): ClaimAnalysis => {
  let analysis = analyses.get(text)
  if (analysis === undefined) {
    analysis = analyseClaim(text)
    if (analyses.size >= 5_000) analyses.delete(analyses.keys().next().value!)
    analyses.set(text, analysis)
  }
  return analysis
}

/** How many of the closest windows are weighed for the reason an uncovered claim gives. */
const CLOSEST = 3

/** Markdown emphasis and quote markers removed; code spans keep their ticks. */
const displayText = (text: string): string =>
  text
    .replace(/\*\*|__|~~/g, "")
    .replace(/(^|[\s(])[*_]+(?=\S)/g, "$1")
    .replace(/(?<=[^\s/])[*_]+(?=$|[\s),.;:!?])/g, "")
    .replace(/\s+/g, " ")
    .trim()

const toClaim = (text: string, index: number, analysis: ClaimAnalysis): Claim => ({
  index,
  text: displayText(text),
  anchors: anchorsOf(analysis),
  words: analysis.words
})

/** The claims of a markdown body (frontmatter already removed). */
export const extractClaims = (body: string): ReadonlyArray<Claim> =>
  splitClaimTexts(body).map((text, index) => toClaim(text, index, analyse(text)))

/** For every claim of `source`, whether one of `targets` states it too. */
export const claimCoverage = (
  source: string,
  targets: ReadonlyArray<string>,
  options: CoverageOptions = {}
): ReadonlyArray<ClaimCoverage> => {
  const minOverlap = options.minOverlap ?? DEFAULT_MIN_OVERLAP
  const width = Math.max(1, options.window ?? DEFAULT_WINDOW)
  const windows = targets.flatMap((target, targetIndex) => {
    const claims = splitClaimTexts(target).map(analyse)
    const out: Array<{ readonly target: number; readonly claims: ReadonlyArray<number>; readonly window: ReturnType<typeof windowOf> }> = []
    for (let from = 0; from < claims.length; from++) {
      for (let size = 1; size <= width && from + size <= claims.length; size++) {
        const indexes = Array.from({ length: size }, (_, k) => from + k)
        out.push({ target: targetIndex, claims: indexes, window: windowOf(indexes.map((k) => claims[k]!)) })
      }
    }
    return out
  })
  return splitClaimTexts(source).map((text, index) => {
    const analysis = analyse(text)
    const claim = toClaim(text, index, analysis)
    // the windows sharing most of the claim's words first: only they can cover it
    const ranked = windows
      .map((candidate) => ({ candidate, overlap: overlapOf(analysis, candidate.window) }))
      .sort((a, b) => b.overlap - a.overlap || a.candidate.claims.length - b.candidate.claims.length)
    let best: { readonly candidate: (typeof windows)[number]; readonly losses: ReadonlyArray<ClaimLoss> } | undefined
    for (const [rank, { candidate, overlap }] of ranked.entries()) {
      if (overlap < minOverlap && rank >= CLOSEST) break
      const losses = lossesOf(analysis, candidate.window, minOverlap)
      if (losses.length === 0) {
        return {
          claim,
          covered: true,
          coveredBy: candidate.target,
          targetClaims: candidate.claims,
          reason: candidate.claims.length === 1 ? "stated by one target claim" : `stated by ${candidate.claims.length} adjacent target claims`
        }
      }
      if (best === undefined || losses.length < best.losses.length) best = { candidate, losses }
    }
    if (best === undefined) return { claim, covered: false, reason: "no target makes any claim" }
    const loss = best.losses[0]!
    return { claim, covered: false, reason: loss.detail, loss, targetClaims: best.candidate.claims }
  })
}

/** True when every claim of `source` is covered by `targets` (an empty source is trivially covered). */
export const fullyCovered = (source: string, targets: ReadonlyArray<string>, options: CoverageOptions = {}): boolean =>
  claimCoverage(source, targets, options).every((coverage) => coverage.covered)

export { DEFAULT_MIN_OVERLAP, DEFAULT_WINDOW }
