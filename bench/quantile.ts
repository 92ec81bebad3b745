/**
 * The p-quantile of the samples, interpolated between the two nearest ranks
 * (p = 0.5 is the median), rounded to 3 decimals: the bench steps written in
 * TypeScript (driver, mcpHttp, postgres) report with it, as measure.mjs's
 * quantile does for the sections.
 */
export const quantile = (samples: ReadonlyArray<number>, p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (sorted.length - 1) * p
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return Math.round((sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo)) * 1000) / 1000
}
