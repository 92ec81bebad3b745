/**
 * Rank-quality metrics of a returned list against judged relevant and banned
 * refs (the curate-golden metric: nDCG@k with binary gain, recall@k, MRR,
 * noLeapfrog and their composite). Used by the search-quality benchmark and
 * conformance suite; pure.
 */

export interface Judgment {
  /** Order-independent set of relevant refs. */
  readonly relevant: ReadonlyArray<string>
  /** Clearly off-topic refs that must never rank above a relevant one. */
  readonly banned: ReadonlyArray<string>
  /** k: the list is scored at this depth. */
  readonly limit: number
}

export interface RankScores {
  readonly ndcg: number
  readonly recall: number
  readonly mrr: number
  readonly noLeapfrog: number
  /** Banned refs returned above the worst-ranked returned relevant ref. */
  readonly leapfrogCount: number
  readonly composite: number
}

const gain = (i: number): number => 1 / Math.log2(i + 2)

/** Scores one returned list (rank order) against one judgment. */
export const scoreRanking = (returned: ReadonlyArray<string>, judgment: Judgment): RankScores => {
  const relevant = new Set(judgment.relevant)
  const banned = new Set(judgment.banned)
  const k = judgment.limit
  const top = returned.slice(0, k)

  const dcg = top.reduce((sum, ref, i) => sum + (relevant.has(ref) ? gain(i) : 0), 0)
  let idcg = 0
  for (let i = 0; i < Math.min(k, relevant.size); i++) idcg += gain(i)
  const ndcg = idcg === 0 ? 1 : dcg / idcg
  const recall = relevant.size === 0 ? 1 : new Set(top.filter((ref) => relevant.has(ref))).size / relevant.size
  const first = returned.findIndex((ref) => relevant.has(ref))
  const mrr = first === -1 ? 0 : 1 / (first + 1)

  let worst = -1
  returned.forEach((ref, i) => {
    if (relevant.has(ref)) worst = i
  })
  const bannedAt = returned.map((ref, i) => (banned.has(ref) ? i : -1)).filter((i) => i >= 0)
  const leapfrogCount = worst === -1 ? 0 : bannedAt.filter((i) => i < worst).length
  const noLeapfrog = bannedAt.length === 0 || worst === -1 ? 1 : 1 - leapfrogCount / bannedAt.length

  return { ndcg, recall, mrr, noLeapfrog, leapfrogCount, composite: 0.5 * ndcg + 0.2 * recall + 0.1 * mrr + 0.2 * noLeapfrog }
}

/** The arithmetic mean of each score over several queries. */
export const meanScores = (scores: ReadonlyArray<RankScores>): RankScores => {
  const mean = (pick: (s: RankScores) => number) => (scores.length === 0 ? 0 : scores.reduce((sum, s) => sum + pick(s), 0) / scores.length)
  return {
    ndcg: mean((s) => s.ndcg),
    recall: mean((s) => s.recall),
    mrr: mean((s) => s.mrr),
    noLeapfrog: mean((s) => s.noLeapfrog),
    leapfrogCount: scores.reduce((sum, s) => sum + s.leapfrogCount, 0),
    composite: mean((s) => s.composite)
  }
}
