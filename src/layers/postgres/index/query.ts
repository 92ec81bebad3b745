import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { Effect } from "effect"
import type { ItemFilters } from "../../../domain/Search.js"
import type { BrowseQuery, Candidate, CandidateQuery, CandidateSet, IndexedItem } from "../../../services/IndexStore.js"
import { itemFromRow as itemOf, type ItemRow as StoredRow } from "../../sqlite/index/rows.js"
import { absoluteFrom } from "./paths.js"
import { filterClause, ITEM_COLUMNS, ITEM_JOINS, narrows } from "./columns.js"
import { bm25, groupFrequencies, inverseFrequency, type Occurrences } from "./bm25.js"
import { anyQuery, groupLexemes, groupQuery, RANK_WEIGHTS, substringPattern, type GroupLexemes } from "./words.js"

/** A row of ITEM_COLUMNS: index.db's, with the bundle's root its relative path is under. */
type ItemRow = StoredRow & { readonly bundleRoot: string | null }

const itemFromRow = (row: ItemRow): IndexedItem => {
  const item = itemOf(row)
  const path = absoluteFrom(row.bundleRoot, item.path)
  return path === item.path ? item : { ...item, path }
}

/** Substring weights per folded field (name, description, tags, content), as the SQLite layer's LIKE plan. */
const SUBSTRING_FIELDS = [["s_name", 10], ["s_description", 5], ["s_tags", 3], ["s_content", 1]] as const

/**
 * How one query's candidates are found: the condition a matching row meets
 * (served by a GIN index), its lexical score, and per group or segment the
 * condition that it contains it.
 */
interface MatchPlan {
  readonly match: Fragment
  readonly score: Fragment
  readonly members: ReadonlyArray<Fragment>
}

/**
 * Words: the groups OR-ed into one tsquery over the weighted tsvector.
 * ts_rank (weights D–A 0.1/0.25/0.5/1, length-normalised by 1 + log length)
 * stands in for FTS5's bm25: only its order among the candidates and its ratio
 * to the best matter, the ranking table does the rest (spec 04 §3).
 */
const wordsPlan = (sql: SqlClient.SqlClient, groups: CandidateQuery["match"] & { _tag: "Words" }): MatchPlan | undefined => {
  const parts = groups.groups.map((g) => groupQuery(g, groups.prefix))
  const present = parts.filter((p): p is string => p !== undefined)
  if (present.length === 0) return undefined
  const query = anyQuery(present)
  return {
    match: sql`d.words @@ ${query}::tsquery`,
    score: sql`ts_rank(${sql.literal(`'${RANK_WEIGHTS}'`)}::float4[], d.words, ${query}::tsquery, 1)`,
    members: parts.map((p) => (p === undefined ? sql.literal("FALSE") : sql`d.words @@ ${p}::tsquery`))
  }
}

/** Substrings: LIKE over the folded texts, one pg_trgm index for segments of 3+ characters (shorter ones scan). */
const substringPlan = (sql: SqlClient.SqlClient, segments: ReadonlyArray<string>): MatchPlan | undefined => {
  if (segments.length === 0) return undefined
  const patterns = segments.map(substringPattern)
  const weight = patterns.flatMap((p) => SUBSTRING_FIELDS.map(([column, w]) => sql`(CASE WHEN ${sql.literal(`d.${column}`)} LIKE ${p} THEN ${sql.literal(String(w))} ELSE 0 END)`))
  return {
    match: sql.or(patterns.map((p) => sql`d.s_all LIKE ${p}`)),
    score: sql`(${sql.join(" + ", false)(weight)})::float8`,
    members: patterns.map((p) => sql`d.s_all LIKE ${p}`)
  }
}

const planFor = (sql: SqlClient.SqlClient, query: CandidateQuery): MatchPlan | undefined =>
  query.match._tag === "Words" ? wordsPlan(sql, query.match) : substringPlan(sql, query.match.segments)

type Fetched = ItemRow & { readonly lexical: number } & Record<string, unknown>

const candidateOf = (row: Fetched, size: number): Candidate => {
  const matched: Array<boolean> = []
  for (let i = 0; i < size; i++) matched.push(row[`m${i}`] === true)
  return { item: itemFromRow(row), lexical: row.lexical, matched }
}

/** Occurrences of the query's lexemes in these items, by item id (bm25's input). */
const occurrencesIn = (sql: SqlClient.SqlClient, ids: ReadonlyArray<number>, groups: ReadonlyArray<GroupLexemes>) =>
  Effect.gen(function* () {
    const exact = [...new Set(groups.flatMap((g) => g.exact))]
    const prefixes = [...new Set(groups.flatMap((g) => g.prefixes))]
    const byId = new Map<number, Array<Occurrences>>()
    if (ids.length === 0 || exact.length + prefixes.length === 0) return byId
    const wanted = sql.or([
      ...(exact.length === 0 ? [] : [sql`u.lexeme IN ${sql.in(exact)}`]),
      ...prefixes.map((p) => sql`u.lexeme LIKE ${`${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`)
    ])
    const rows = yield* sql<{ id: number; lexeme: string; weights: ReadonlyArray<string> }>`SELECT d.id, u.lexeme, u.weights
      FROM idx_documents d, unnest(d.words) u WHERE d.id IN ${sql.in(ids)} AND ${wanted}`
    for (const row of rows) {
      const list = byId.get(row.id) ?? []
      list.push(row)
      byId.set(row.id, list)
    }
    return byId
  })

const byLexical = (a: Candidate, b: Candidate) => b.lexical - a.lexical || (a.item.ref < b.item.ref ? -1 : a.item.ref > b.item.ref ? 1 : 0)

/**
 * Lexical candidates (spec 04 §3 step 3): the match through its GIN index,
 * filters after it, the number of all that pass, and document frequencies
 * over the whole index as FTS5's vocabulary counts them. Words: ts_rank picks
 * twice the `limit` (plus a margin), then bm25 over their occurrences
 * (bm25.ts) orders them as index.db would and keeps `limit`. Substrings: the
 * weighted LIKE score, as index.db's LIKE plan.
 */
export const candidates = (sql: SqlClient.SqlClient, query: CandidateQuery) =>
  Effect.gen(function* () {
    const plan = planFor(sql, query)
    const empty: CandidateSet = { candidates: [], total: 0, documentCount: 0, documentFrequency: [] }
    if (plan === undefined) return empty
    const words = query.match._tag === "Words" ? query.match.groups.map((g) => groupLexemes(g, (query.match as { prefix: boolean }).prefix)) : undefined
    const wide = words === undefined ? query.limit : query.limit * 2 + 20
    const size = plan.members.length
    const memberNames = plan.members.map((_, i) => `m${i}`)
    const members = sql.csv(plan.members.map((m, i) => sql`${m} AS ${sql.literal(memberNames[i]!)}`))
    const carried = memberNames.map((m) => `, x.${m} AS ${m}`).join("")
    const counts = sql.csv(memberNames.map((m, i) => sql.literal(`count(*) FILTER (WHERE ${m})::int AS c${i}`)))
    const filters = filterClause(sql, query.filters)
    // Replaced items among the best rows (filters aside) that default search hides: their successors inherit their match (issue 25).
    const withReplaced = query.filters.belief === "current" && !narrows(query.filters)
    // One pass over the match: scores, whether each row passes the filters, which groups it contains; then the best
    // that pass, the replaced among the best of all, and the frequencies over all of it (as FTS5's vocabulary counts them).
    const rows = yield* sql<Fetched & { total: number | null; id: number; length: number; kind: string } & Record<string, number>>`WITH hits AS MATERIALIZED (
        SELECT d.id, d.ref, ${plan.score} AS lexical, ${filters} AS passes, d.superseded_by IS NOT NULL AS succeeded, ${members}
        FROM idx_documents d WHERE ${plan.match}
      ), stats AS (
        SELECT ${counts}, (SELECT coalesce(sum(items), 0)::int FROM idx_bundles) AS n, (SELECT coalesce(sum(words), 0)::float8 FROM idx_bundles) AS words FROM hits
      ), best AS (
        SELECT h.*, count(*) OVER () AS total, 'best' AS kind FROM hits h WHERE h.passes ORDER BY h.lexical DESC, h.ref COLLATE "C" LIMIT ${wide}
      ), top AS (
        SELECT h.*, NULL::bigint AS total, 'replaced' AS kind FROM hits h WHERE ${sql.literal(withReplaced ? "TRUE" : "FALSE")}
        ORDER BY h.lexical DESC, h.ref COLLATE "C" LIMIT ${query.limit}
      )
      SELECT ${sql.literal(ITEM_COLUMNS)}, d.id AS id, d.words_length AS length, x.lexical::float8 AS lexical, x.total::int AS total, x.kind AS kind
        ${sql.literal(carried)}, stats.*
      FROM (SELECT * FROM best UNION ALL SELECT * FROM top WHERE succeeded AND NOT passes) x
      JOIN idx_documents d ON d.id = x.id ${sql.literal(ITEM_JOINS)} CROSS JOIN stats
      ORDER BY x.lexical DESC, x.ref COLLATE "C"`
    const mine = rows.filter((row) => row.kind === "best")
    if (mine.length === 0) return empty
    const replaced = rows.filter((row) => row.kind === "replaced")
    const stats = rows[0]!
    const sizes = { n: stats.n ?? 0, words: stats.words ?? 0 }
    const documentCount = sizes.n
    const documentFrequency = plan.members.map((_, i) => stats[`c${i}`] ?? 0)
    let found = mine.map((row) => candidateOf(row, size))
    let hidden = replaced.map((row) => candidateOf(row, size))
    if (words !== undefined) {
      const occurrences = yield* occurrencesIn(sql, rows.map((row) => row.id), words)
      const inverse = documentFrequency.map((n) => inverseFrequency(n, documentCount))
      const average = documentCount > 0 ? sizes.words / documentCount : 0
      const scored = (row: Fetched & { id: number; length: number }, c: Candidate): Candidate =>
        ({ ...c, lexical: bm25(groupFrequencies(words, occurrences.get(row.id) ?? []), inverse, row.length, average) })
      found = mine.map((row, i) => scored(row, found[i]!)).sort(byLexical).slice(0, query.limit)
      hidden = replaced.map((row, i) => scored(row, hidden[i]!)).sort(byLexical)
    }
    return {
      candidates: found,
      ...(hidden.length === 0 ? {} : { replaced: hidden }),
      total: mine[0]!.total ?? 0,
      documentCount,
      documentFrequency
    } satisfies CandidateSet
  })

/** The items with these refs that pass the filters, in the order given. */
export const itemsByRef = (sql: SqlClient.SqlClient, refs: ReadonlyArray<string>, filters: ItemFilters) =>
  Effect.gen(function* () {
    if (refs.length === 0) return []
    const rows = yield* sql<ItemRow>`SELECT ${sql.literal(ITEM_COLUMNS)} FROM idx_documents d ${sql.literal(ITEM_JOINS)}
      WHERE d.ref IN ${sql.in(refs)} AND ${filterClause(sql, filters)}`
    const byRef = new Map(rows.map((row) => [row.ref, itemFromRow(row)]))
    return refs.flatMap((ref): ReadonlyArray<IndexedItem> => {
      const item = byRef.get(ref)
      return item === undefined ? [] : [item]
    })
  })

/** The first `chars` characters of these items' content, by ref. */
export const excerpts = (sql: SqlClient.SqlClient, refs: ReadonlyArray<string>, chars: number) =>
  Effect.gen(function* () {
    if (refs.length === 0) return new Map<string, string>()
    const rows = yield* sql<{ ref: string; text: string | null }>`SELECT d.ref, substr(d.doc::jsonb ->> 'content', 1, ${chars}) AS text
      FROM idx_documents d WHERE d.ref IN ${sql.in(refs)}`
    return new Map(rows.flatMap((row) => (typeof row.text === "string" ? [[row.ref, row.text] as const] : [])))
  })

/** Items under a concept-id prefix (and bundle), sorted by ref. */
export const browse = (sql: SqlClient.SqlClient, query: BrowseQuery) =>
  Effect.gen(function* () {
    const where = [
      ...(query.bundle === undefined ? [] : [sql`d.bundle = ${query.bundle}`]),
      ...(query.prefix === "" ? [] : [sql`left(d.concept_id, length(${query.prefix})) = ${query.prefix}`]),
      filterClause(sql, query.filters)
    ]
    const rows = yield* sql<ItemRow & { total: number }>`SELECT ${sql.literal(ITEM_COLUMNS)}, (count(*) OVER ())::int AS total
      FROM idx_documents d ${sql.literal(ITEM_JOINS)} WHERE ${sql.and(where)} ORDER BY d.ref COLLATE "C" LIMIT ${query.limit}`
    return { items: rows.map(itemFromRow), total: rows[0]?.total ?? 0 }
  })
