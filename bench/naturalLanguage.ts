/**
 * The natural-language search set (test/fixtures/search-quality): an
 * akm-style library with decoys that share a name with the right item and
 * superseded twins, and task-style questions whose words only partly match.
 * Scored like the unseen benchmark of spec 10 §2: mean nDCG@10, mean
 * Recall@10, and how many queries rank a banned decoy above a relevant item.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { meanScores, scoreRanking } from "../src/domain/RankMetrics.js"
import { shortRef } from "./quality.js"

interface NaturalQuery {
  readonly id: string
  readonly query: string
  readonly relevant: ReadonlyArray<string>
  readonly banned: ReadonlyArray<string>
}

export interface NaturalLanguageReport {
  readonly queries: number
  readonly ndcg: number
  readonly recall: number
  readonly mrr: number
  /** Queries where a banned decoy ranks above a relevant item. */
  readonly decoyAbove: number
  readonly misses: ReadonlyArray<{ readonly id: string; readonly query: string; readonly ndcg: number; readonly leapfrogs: number; readonly returned: ReadonlyArray<string> }>
}

const K = 10

export const naturalLanguageSet = () => {
  const library = fileURLToPath(new URL("../test/fixtures/search-quality/library", import.meta.url))
  const judgments = fileURLToPath(new URL("../test/fixtures/search-quality/judgments.json", import.meta.url))
  const run = async (search: (query: string, limit: number) => Promise<ReadonlyArray<string>>): Promise<NaturalLanguageReport> => {
    const queries = (JSON.parse(readFileSync(judgments, "utf8")) as { queries: ReadonlyArray<NaturalQuery> }).queries
    const cases = []
    for (const q of queries) {
      const returned = (await search(q.query, K)).map(shortRef)
      cases.push({ id: q.id, query: q.query, returned, ...scoreRanking(returned, { relevant: q.relevant, banned: q.banned, limit: K }) })
    }
    const mean = meanScores(cases)
    return {
      queries: cases.length,
      ndcg: mean.ndcg,
      recall: mean.recall,
      mrr: mean.mrr,
      decoyAbove: cases.filter((c) => c.leapfrogCount > 0).length,
      misses: cases.filter((c) => c.ndcg < 0.9 || c.leapfrogCount > 0).map((c) => ({ id: c.id, query: c.query, ndcg: Math.round(c.ndcg * 1000) / 1000, leapfrogs: c.leapfrogCount, returned: c.returned.slice(0, 6) }))
    }
  }
  return { library, judgments, run }
}
