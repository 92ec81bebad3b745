/**
 * Claims and their coverage (spec 06 §8, R-MEM-3/4): a memory may be retired
 * only when every claim it makes is accounted for by what survives. This file
 * is the contract between the memory lifecycle and the claim extractor; the
 * extractor and checker behind it are deterministic (no model).
 *
 * The implementation here is the conservative placeholder the extractor
 * replaces: a claim is covered only when a target holds the same normalised
 * sentence.
 */

/** One atomic statement of a memory: a sentence, a bullet, or a table row. */
export interface Claim {
  /** Position in the source, from 0, in reading order. */
  readonly index: number
  /** The statement as written (markdown syntax stripped, whitespace collapsed). */
  readonly text: string
}

/** Why a claim is or is not covered; `reason` is one short human line. */
export interface ClaimCoverage {
  readonly claim: Claim
  readonly covered: boolean
  /** The index (into the targets) of the text that covers it. */
  readonly coveredBy?: number
  readonly reason: string
}

const normalise = (text: string): string =>
  text.toLowerCase().replace(/[`*_>#]/g, "").replace(/\s+/g, " ").trim().replace(/[.;:!]+$/, "")

/** The claims of a markdown body (frontmatter already removed). */
export const extractClaims = (body: string): ReadonlyArray<Claim> =>
  body
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z0-9])/)
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").trim())
    .filter((line) => /[\p{L}\p{N}]/u.test(line))
    .map((text, index) => ({ index, text: text.replace(/\s+/g, " ") }))

/** For every claim of `source`, whether one of `targets` states it too. */
export const claimCoverage = (source: string, targets: ReadonlyArray<string>): ReadonlyArray<ClaimCoverage> => {
  const targetSets = targets.map((target) => new Set(extractClaims(target).map((claim) => normalise(claim.text))))
  return extractClaims(source).map((claim) => {
    const key = normalise(claim.text)
    const found = targetSets.findIndex((set) => set.has(key))
    return found >= 0
      ? { claim, covered: true, coveredBy: found, reason: "stated identically" }
      : { claim, covered: false, reason: "no target states it" }
  })
}
