/**
 * The natural-language search set (test/fixtures/search-quality): an
 * akm-style library with decoys that share a name with the right item,
 * keyword-stuffed twins and superseded twins, plus a project (rules with
 * `superseded_by`) and an OKF bundle (`status: deprecated`, `stale_after`);
 * task-style questions whose words only partly match. Scored like the unseen
 * benchmark of spec 10 §2: mean nDCG@10, mean Recall@10, and how many queries
 * rank a banned item above a relevant one, over all queries and over each
 * half of the frozen split (tuning / held-out, judgments.json `split`).
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { meanScores, scoreRanking, type RankScores } from "../src/domain/RankMetrics.js"
import { shortRef } from "./quality.js"

export type QueryKind = "plain" | "stuffed" | "decoy" | "superseded"
export type Split = "tuning" | "held-out"

interface NaturalQuery {
  readonly id: string
  readonly query: string
  readonly relevant: ReadonlyArray<string>
  readonly banned: ReadonlyArray<string>
  readonly kind: QueryKind
  readonly split: Split
}

export interface NaturalLanguageScores {
  readonly queries: number
  readonly ndcg: number
  readonly recall: number
  readonly mrr: number
  /** Queries where a banned decoy ranks above a relevant item. */
  readonly decoyAbove: number
  /** Of those, queries testing a superseded, deprecated or stale version (kind `superseded`). */
  readonly supersededAbove: number
}

export interface NaturalLanguageReport extends NaturalLanguageScores {
  readonly tuning: NaturalLanguageScores
  readonly heldOut: NaturalLanguageScores
  /**
   * The tuning half's misses only: the held-out half is reported as figures,
   * never query by query, so nobody tunes on it by reading its failures
   * (docs/decisions/0046-vocabulary-gaps.md).
   */
  readonly misses: ReadonlyArray<{ readonly id: string; readonly split: Split; readonly query: string; readonly ndcg: number; readonly leapfrogs: number; readonly returned: ReadonlyArray<string> }>
}

/** A bundle of the set: its folder, the name it is mounted under and its adapter. */
export interface NaturalBundle {
  readonly source: string
  readonly name: string
  readonly adapter: string
}

const K = 10

const fixture = (path: string) => fileURLToPath(new URL(`../test/fixtures/search-quality/${path}`, import.meta.url))

export const naturalLanguageSet = () => {
  const library = fixture("library")
  const bundles: ReadonlyArray<NaturalBundle> = [
    { source: library, name: "library", adapter: "akm" },
    { source: fixture("project"), name: "project", adapter: "project" },
    { source: fixture("okf"), name: "okf", adapter: "okf" }
  ]
  const judgments = fixture("judgments.json")
  const queries = (): ReadonlyArray<NaturalQuery> => (JSON.parse(readFileSync(judgments, "utf8")) as { queries: ReadonlyArray<NaturalQuery> }).queries
  const run = async (search: (query: string, limit: number) => Promise<ReadonlyArray<string>>): Promise<NaturalLanguageReport> => {
    const cases: Array<{ readonly id: string; readonly query: string; readonly kind: QueryKind; readonly split: Split; readonly returned: ReadonlyArray<string> } & RankScores> = []
    for (const q of queries()) {
      const returned = (await search(q.query, K)).map(shortRef)
      cases.push({ id: q.id, query: q.query, kind: q.kind, split: q.split, returned, ...scoreRanking(returned, { relevant: q.relevant, banned: q.banned, limit: K }) })
    }
    const scores = (some: typeof cases): NaturalLanguageScores => {
      const mean = meanScores(some)
      const above = some.filter((c) => c.leapfrogCount > 0)
      return { queries: some.length, ndcg: mean.ndcg, recall: mean.recall, mrr: mean.mrr, decoyAbove: above.length, supersededAbove: above.filter((c) => c.kind === "superseded").length }
    }
    return {
      ...scores(cases),
      tuning: scores(cases.filter((c) => c.split === "tuning")),
      heldOut: scores(cases.filter((c) => c.split === "held-out")),
      misses: cases.filter((c) => c.split === "tuning" && (c.ndcg < 0.9 || c.leapfrogCount > 0)).map((c) => ({
        id: c.id, split: c.split, query: c.query, ndcg: Math.round(c.ndcg * 1000) / 1000, leapfrogs: c.leapfrogCount, returned: c.returned.slice(0, 6)
      }))
    }
  }
  return { library, bundles, judgments, queries, run }
}
