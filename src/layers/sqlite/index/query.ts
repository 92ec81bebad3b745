import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { Effect } from "effect"
import type { QueryGroup } from "../../../domain/Query.js"
import type { ItemFilters } from "../../../domain/Search.js"
import type { BrowseQuery, CandidateQuery, CandidateSet } from "../../../services/IndexStore.js"
import { filterClause } from "./filters.js"
import { groupExpression, likePattern, orExpression, substringExpression, TRIGRAM_MIN } from "./matchExpression.js"
import { ITEM_COLUMNS, ITEM_JOINS, itemFromRow, type ItemRow } from "./rows.js"

type CandidateRow = ItemRow & { readonly id: number; readonly lexical: number } & Record<`m${number}`, number>

const WORD_WEIGHTS = "10.0, 5.0, 3.0, 2.0, 1.0"
const TRIGRAM_WEIGHTS = "10.0, 5.0, 3.0, 1.0"
const TRIGRAM_COLUMNS = ["name", "description", "tags", "content"] as const
const LIKE_WEIGHTS = [10, 5, 3, 1] as const

/**
 * How one query's candidates are found: the CTE that matches (and ranks),
 * per group or segment an expression telling whether a row contains it, and
 * how its document frequency is counted: from the vocabulary (terms whose
 * counts add up; a phrase takes its rarest word) or by a counting query.
 */
interface MatchPlan {
  readonly hits: Fragment
  /** The same match without ranking: every matching row id. */
  readonly ids: Fragment
  readonly member: ReadonlyArray<Fragment>
  readonly frequency: ReadonlyArray<{ readonly terms: ReadonlyArray<string>; readonly phrase: boolean } | Fragment>
}

const wordsPlan = (sql: SqlClient.SqlClient, groups: ReadonlyArray<QueryGroup>, prefix: boolean): MatchPlan => {
  const expressions = groups.map((g) => groupExpression(g, prefix))
  return {
    hits: sql`SELECT rowid AS id, bm25(documents_fts, ${sql.literal(WORD_WEIGHTS)}) AS rank FROM documents_fts WHERE documents_fts MATCH ${orExpression(expressions)}`,
    ids: sql`SELECT rowid AS id FROM documents_fts WHERE documents_fts MATCH ${orExpression(expressions)}`,
    member: expressions.map((e) => sql`d.id IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ${e})`),
    // Prefix terms have no single vocabulary entry: count them.
    frequency: groups.map((g, i) =>
      prefix ? sql`(SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ${expressions[i]!})` : { terms: [...g.stems, ...g.alternatives.map((a) => a.stem)], phrase: g.phrase }
    )
  }
}

const trigramPlan = (sql: SqlClient.SqlClient, segments: ReadonlyArray<string>): MatchPlan => {
  const expressions = segments.map(substringExpression)
  return {
    hits: sql`SELECT rowid AS id, bm25(documents_trigram, ${sql.literal(TRIGRAM_WEIGHTS)}) AS rank FROM documents_trigram WHERE documents_trigram MATCH ${orExpression(expressions)}`,
    ids: sql`SELECT rowid AS id FROM documents_trigram WHERE documents_trigram MATCH ${orExpression(expressions)}`,
    member: expressions.map((e) => sql`d.id IN (SELECT rowid FROM documents_trigram WHERE documents_trigram MATCH ${e})`),
    frequency: expressions.map((e) => sql`(SELECT count(*) FROM documents_trigram WHERE documents_trigram MATCH ${e})`)
  }
}

/** Segments under 3 characters cannot use trigrams: LIKE over the trigram table's text, weighted like bm25's columns. */
const likePlan = (sql: SqlClient.SqlClient, segments: ReadonlyArray<string>): MatchPlan => {
  const contains = (alias: string, pattern: string) => sql.or(TRIGRAM_COLUMNS.map((c) => sql`${sql.literal(`${alias}${c}`)} LIKE ${pattern} ESCAPE '\\'`))
  const patterns = segments.map(likePattern)
  const weight = patterns.flatMap((p) => TRIGRAM_COLUMNS.map((c, i) => sql`${sql.literal(String(LIKE_WEIGHTS[i]))} * (${sql.literal(c)} LIKE ${p} ESCAPE '\\')`))
  return {
    hits: sql`SELECT rowid AS id, -(${sql.join(" + ", false)(weight)}) AS rank FROM documents_trigram WHERE ${sql.or(patterns.map((p) => contains("", p)))}`,
    ids: sql`SELECT rowid AS id FROM documents_trigram WHERE ${sql.or(patterns.map((p) => contains("", p)))}`,
    member: patterns.map((p) => sql`d.id IN (SELECT rowid FROM documents_trigram x WHERE ${contains("x.", p)})`),
    frequency: patterns.map((p) => sql`(SELECT count(*) FROM documents_trigram x WHERE ${contains("x.", p)})`)
  }
}

const planFor = (sql: SqlClient.SqlClient, query: CandidateQuery): MatchPlan | undefined => {
  const match = query.match
  if (match._tag === "Words") return match.groups.length === 0 ? undefined : wordsPlan(sql, match.groups, match.prefix)
  if (match.segments.length === 0) return undefined
  return match.segments.every((s) => [...s].length >= TRIGRAM_MIN) ? trigramPlan(sql, match.segments) : likePlan(sql, match.segments)
}

const isFragment = (f: MatchPlan["frequency"][number]): f is Fragment => !("terms" in f)

/** Document frequency per group and the number of documents, in one statement. */
const frequencies = (sql: SqlClient.SqlClient, plan: MatchPlan) =>
  Effect.gen(function* () {
    const words = [...new Set(plan.frequency.flatMap((f) => (isFragment(f) ? [] : f.terms)))]
    const counted = plan.frequency.flatMap((f, i) => (isFragment(f) ? [sql`${f} AS ${sql.literal(`c${i}`)}`] : []))
    // One row of totals; the vocabulary's counts ride along as JSON.
    const [totals] = yield* sql<Record<string, number> & { readonly vocab: string | null }>`SELECT (SELECT count(*) FROM documents) AS n,
      ${words.length === 0 ? sql.literal("NULL") : sql`(SELECT json_group_object(term, doc) FROM documents_vocab WHERE term IN ${sql.in(words)})`} AS vocab
      ${counted.length === 0 ? sql.literal("") : sql`, ${sql.csv(counted)}`}`
    const df = new Map<string, number>(Object.entries(JSON.parse(totals?.vocab ?? "{}") as Record<string, number>))
    const documentFrequency = plan.frequency.map((f, i) => {
      if (isFragment(f)) return totals?.[`c${i}`] ?? 0
      const counts = f.terms.map((t) => df.get(t) ?? 0)
      return f.phrase ? Math.min(...counts) : counts.reduce((a, b) => a + b, 0)
    })
    return { documentCount: totals?.n ?? 0, documentFrequency }
  })

/** Filters that may leave out much of a match (the rest only drop proposed or replaced items, which are few). */
const narrows = (filters: ItemFilters): boolean =>
  filters.bundles !== undefined || filters.types !== undefined || filters.adapters !== undefined || filters.scope !== undefined || filters.belief === "historical"

const byRank = (a: CandidateRow, b: CandidateRow) => b.lexical - a.lexical || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)

/**
 * Lexical candidates (spec 04 §3 step 3). The MATCH runs on its own (in a
 * CTE or a subquery) and the filters after it. Fast path: the best `limit`
 * rows by bm25 (plus a margin) straight from the full-text index, then their
 * documents with the filters; when the filters leave fewer than `limit` of a longer match,
 * the whole match is joined and filtered. Membership per group is asked for
 * the returned rows only.
 */
export const candidates = (sql: SqlClient.SqlClient, query: CandidateQuery) =>
  Effect.gen(function* () {
    const plan = planFor(sql, query)
    const empty: CandidateSet = { candidates: [], total: 0, documentCount: 0, documentFrequency: [] }
    if (plan === undefined) return empty
    const single = plan.member.length === 1
    const member = single ? sql.literal("") : sql`, ${sql.csv(plan.member.map((m, i) => sql`${m} AS ${sql.literal(`m${i}`)}`))}`
    const filters = filterClause(sql, query.filters)
    // A margin for items the filters leave out; rarely more than a few.
    const wide = query.limit + Math.max(10, Math.ceil(query.limit / 4))

    const top = yield* sql<{ id: number; rank: number }>`SELECT id, rank FROM (${plan.hits}) ORDER BY rank LIMIT ${wide}`
    if (top.length === 0) return empty
    const rankOf = new Map(top.map((row) => [row.id, row.rank]))
    const fetched = yield* sql<CandidateRow>`SELECT ${sql.literal(ITEM_COLUMNS)}, d.id AS id ${member}
      FROM documents d ${sql.literal(ITEM_JOINS)} WHERE d.id IN ${sql.in(top.map((row) => row.id))} AND ${filters}`
    let rows: ReadonlyArray<CandidateRow> = fetched.map((row) => ({ ...row, lexical: -(rankOf.get(row.id) ?? 0) })).sort(byRank).slice(0, query.limit)
    let total: number
    if (top.length < wide) total = fetched.length
    else if (fetched.length < query.limit || narrows(query.filters)) {
      rows = [...(yield* sql<CandidateRow>`WITH hits AS MATERIALIZED (${plan.hits}),
        ranked AS (
          SELECT h.id AS id, h.rank AS rank, d.ref AS ref FROM hits h JOIN documents d ON d.id = h.id
          WHERE ${filters} ORDER BY h.rank, d.ref LIMIT ${query.limit}
        )
        SELECT ${sql.literal(ITEM_COLUMNS)}, d.id AS id, -r.rank AS lexical ${member}
        FROM ranked r JOIN documents d ON d.id = r.id ${sql.literal(ITEM_JOINS)} ORDER BY r.rank, r.ref`)]
      const [counted] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM (${plan.ids}) m JOIN documents d ON d.id = m.id WHERE ${filters}`
      total = counted?.n ?? rows.length
    } else {
      // Every match counts but the few proposed or replaced ones the filters leave out (a partial index finds them).
      const [counted] = yield* sql<{ n: number; excluded: number }>`SELECT (SELECT count(*) FROM (${plan.ids})) AS n,
        (SELECT count(*) FROM documents d INDEXED BY documents_excludable WHERE (d.quality = 'proposed' OR d.superseded_by IS NOT NULL)
          AND d.id IN (SELECT id FROM (${plan.ids})) AND NOT ${filters}) AS excluded`
      total = (counted?.n ?? 0) - (counted?.excluded ?? 0)
    }
    if (rows.length === 0) return empty
    const stats = yield* frequencies(sql, plan)
    return {
      candidates: rows.map((row) => ({
        item: itemFromRow(row),
        lexical: row.lexical,
        matched: plan.member.map((_, i) => single || row[`m${i}`] === 1)
      })),
      total,
      ...stats
    } satisfies CandidateSet
  })

/** The items with these refs that pass the filters, in the order given. */
export const itemsByRef = (sql: SqlClient.SqlClient, refs: ReadonlyArray<string>, filters: ItemFilters) =>
  Effect.gen(function* () {
    if (refs.length === 0) return []
    const rows = yield* sql<ItemRow>`SELECT ${sql.literal(ITEM_COLUMNS)} FROM documents d ${sql.literal(ITEM_JOINS)}
      WHERE d.ref IN ${sql.in(refs)} AND ${filterClause(sql, filters)}`
    const byRef = new Map(rows.map((row) => [row.ref, itemFromRow(row)]))
    return refs.flatMap((ref) => byRef.get(ref) ?? [])
  })

/** Items under a concept-id prefix (and bundle), sorted by ref. */
export const browse = (sql: SqlClient.SqlClient, query: BrowseQuery) =>
  Effect.gen(function* () {
    const where = [
      ...(query.bundle === undefined ? [] : [sql`d.bundle = ${query.bundle}`]),
      ...(query.prefix === "" ? [] : [sql`substr(d.concept_id, 1, length(${query.prefix})) = ${query.prefix}`]),
      filterClause(sql, query.filters)
    ]
    const rows = yield* sql<ItemRow & { readonly total: number }>`SELECT ${sql.literal(ITEM_COLUMNS)}, count(*) OVER () AS total
      FROM documents d ${sql.literal(ITEM_JOINS)} WHERE ${sql.and(where)} ORDER BY d.ref LIMIT ${query.limit}`
    return { items: rows.map(itemFromRow), total: rows[0]?.total ?? 0 }
  })
