import { Effect } from "effect"
import type { QueryGroup } from "../../../domain/Query.js"
import type { ItemFilters } from "../../../domain/Search.js"
import type { BrowseQuery, CandidateQuery, CandidateSet } from "../../../services/IndexStore.js"
import type { SqlReader } from "../driver.js"
import { filterClause } from "./filters.js"
import { groupExpression, likePattern, orExpression, substringExpression, TRIGRAM_MIN } from "./matchExpression.js"
import { ITEM_COLUMNS, ITEM_JOINS, itemFromRow, type ItemRow } from "./rows.js"
import { and, csv, inList, join, literal, or, sql, type SqlText } from "./sqlText.js"

/** What search reads through: either driver (../driver.ts); rows as values for rows as wide as ITEM_COLUMNS. */
export type SearchSql = SqlReader

/** ITEM_COLUMNS read as values, from position `at`: keep in the order of ITEM_COLUMNS (test/cli/search-fastpath.test.ts checks). */
export const itemRowAt = (v: ReadonlyArray<unknown>, at = 0): ItemRow => ({
  ref: v[at] as string,
  bundle: v[at + 1] as string,
  conceptId: v[at + 2] as string,
  adapter: v[at + 3] as string,
  type: v[at + 4] as string | null,
  name: v[at + 5] as string,
  description: v[at + 6] as string | null,
  tags: v[at + 7] as string,
  aliases: v[at + 8] as string,
  hints: v[at + 9] as string,
  quality: v[at + 10] as string | null,
  beliefState: v[at + 11] as string | null,
  supersededBy: v[at + 12] as string | null,
  status: v[at + 13] as string | null,
  staleAfter: v[at + 14] as string | null,
  pinned: v[at + 15] as number,
  path: v[at + 16] as string,
  hash: v[at + 17] as string,
  bytes: v[at + 18] as number,
  tokens: v[at + 19] as number | null,
  utility: v[at + 20] as number | null,
  utilityAt: v[at + 21] as string | null,
  editable: v[at + 22] as number | null,
  diversity: v[at + 23] as number | null
})
const ITEM_WIDTH = 24

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
  readonly hits: SqlText
  /** The same match without ranking: every matching row id. */
  readonly ids: SqlText
  /** The number of groups or segments. */
  readonly size: number
  /**
   * Per group or segment: whether the documents row `d` contains it. With
   * `within`, only matches among those row ids are gathered: the same answer
   * for rows in that range, and much less to gather when the range is narrow.
   */
  readonly member: (within?: RowRange) => ReadonlyArray<SqlText>
  readonly frequency: ReadonlyArray<{ readonly terms: ReadonlyArray<string>; readonly phrase: boolean } | SqlText>
}

/** Row ids from `low` to `high`, both included. */
interface RowRange {
  readonly low: number
  readonly high: number
}

/** ` AND <rowid> BETWEEN low AND high`, or nothing. */
const inRange = (rowid: string, within: RowRange | undefined): SqlText =>
  within === undefined ? literal("") : sql` AND ${literal(rowid)} BETWEEN ${within.low} AND ${within.high}`

const wordsPlan = (groups: ReadonlyArray<QueryGroup>, prefix: boolean): MatchPlan => {
  const expressions = groups.map((g) => groupExpression(g, prefix))
  return {
    hits: sql`SELECT rowid AS id, bm25(documents_fts, ${literal(WORD_WEIGHTS)}) AS rank FROM documents_fts WHERE documents_fts MATCH ${orExpression(expressions)}`,
    ids: sql`SELECT rowid AS id FROM documents_fts WHERE documents_fts MATCH ${orExpression(expressions)}`,
    size: groups.length,
    member: (within) => expressions.map((e) => sql`d.id IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ${e}${inRange("documents_fts.rowid", within)})`),
    // Prefix terms have no single vocabulary entry: count them.
    frequency: groups.map((g, i) =>
      prefix ? sql`(SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ${expressions[i]!})` : { terms: [...g.stems, ...g.alternatives.map((a) => a.stem)], phrase: g.phrase }
    )
  }
}

const trigramPlan = (segments: ReadonlyArray<string>): MatchPlan => {
  const expressions = segments.map(substringExpression)
  return {
    hits: sql`SELECT rowid AS id, bm25(documents_trigram, ${literal(TRIGRAM_WEIGHTS)}) AS rank FROM documents_trigram WHERE documents_trigram MATCH ${orExpression(expressions)}`,
    ids: sql`SELECT rowid AS id FROM documents_trigram WHERE documents_trigram MATCH ${orExpression(expressions)}`,
    size: segments.length,
    member: (within) =>
      expressions.map((e) => sql`d.id IN (SELECT rowid FROM documents_trigram WHERE documents_trigram MATCH ${e}${inRange("documents_trigram.rowid", within)})`),
    frequency: expressions.map((e) => sql`(SELECT count(*) FROM documents_trigram WHERE documents_trigram MATCH ${e})`)
  }
}

/** Segments under 3 characters cannot use trigrams: LIKE over the trigram table's text, weighted like bm25's columns. */
const likePlan = (segments: ReadonlyArray<string>): MatchPlan => {
  const contains = (alias: string, pattern: string) => or(TRIGRAM_COLUMNS.map((c) => sql`${literal(`${alias}${c}`)} LIKE ${pattern} ESCAPE '\\'`))
  const patterns = segments.map(likePattern)
  const weight = patterns.flatMap((p) => TRIGRAM_COLUMNS.map((c, i) => sql`${literal(String(LIKE_WEIGHTS[i]))} * (${literal(c)} LIKE ${p} ESCAPE '\\')`))
  return {
    hits: sql`SELECT rowid AS id, -(${join(" + ", weight)}) AS rank FROM documents_trigram WHERE ${or(patterns.map((p) => contains("", p)))}`,
    ids: sql`SELECT rowid AS id FROM documents_trigram WHERE ${or(patterns.map((p) => contains("", p)))}`,
    size: segments.length,
    member: (within) => patterns.map((p) => sql`d.id IN (SELECT rowid FROM documents_trigram x WHERE ${contains("x.", p)}${inRange("x.rowid", within)})`),
    frequency: patterns.map((p) => sql`(SELECT count(*) FROM documents_trigram x WHERE ${contains("x.", p)})`)
  }
}

const planFor = (query: CandidateQuery): MatchPlan | undefined => {
  const match = query.match
  if (match._tag === "Words") return match.groups.length === 0 ? undefined : wordsPlan(match.groups, match.prefix)
  if (match.segments.length === 0) return undefined
  return match.segments.every((s) => [...s].length >= TRIGRAM_MIN) ? trigramPlan(match.segments) : likePlan(match.segments)
}

const isCounted = (f: MatchPlan["frequency"][number]): f is SqlText => !("terms" in f)

type Totals = Record<string, number> & { readonly vocab: string | null }

/**
 * Document frequency per group and the number of documents: the columns of
 * one row of totals (the vocabulary's counts ride along as JSON) and how to
 * read them. A statement that counts anyway carries them too.
 */
const frequencyColumns = (plan: MatchPlan) => {
  const words = [...new Set(plan.frequency.flatMap((f) => (isCounted(f) ? [] : f.terms)))]
  const counted = plan.frequency.flatMap((f, i) => (isCounted(f) ? [sql`${f} AS ${literal(`c${i}`)}`] : []))
  return {
    columns: sql`(SELECT count(*) FROM documents) AS n,
      ${words.length === 0 ? literal("NULL") : sql`(SELECT json_group_object(term, doc) FROM documents_vocab WHERE term IN ${inList(words)})`} AS vocab
      ${counted.length === 0 ? literal("") : sql`, ${csv(counted)}`}`,
    read: (totals: Totals | undefined) => {
      const df = new Map<string, number>(Object.entries(JSON.parse(totals?.vocab ?? "{}") as Record<string, number>))
      const documentFrequency = plan.frequency.map((f, i) => {
        if (isCounted(f)) return totals?.[`c${i}`] ?? 0
        const counts = f.terms.map((t) => df.get(t) ?? 0)
        return f.phrase ? Math.min(...counts) : counts.reduce((a, b) => a + b, 0)
      })
      return { documentCount: totals?.n ?? 0, documentFrequency }
    }
  }
}

/** Filters that may leave out much of a match (the rest only drop proposed or replaced items, which are few). */
const narrows = (filters: ItemFilters): boolean =>
  filters.bundles !== undefined || filters.types !== undefined || filters.adapters !== undefined || filters.scope !== undefined || filters.belief === "historical"

/**
 * A candidate as fetched: its row of values (ITEM_COLUMNS, then one column,
 * then for several groups which it contains: m0, m1 …) and bm25 (higher is
 * better). The item is built only for the rows kept.
 */
interface Fetched {
  readonly values: ReadonlyArray<unknown>
  readonly ref: string
  readonly lexical: number
}

const byRank = (a: Fetched, b: Fetched) => b.lexical - a.lexical || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)

/** Membership of group `i` starts after ITEM_COLUMNS and the one column after them. */
const MEMBER_AT = ITEM_WIDTH + 1

/**
 * Which index.db a reader sees: data_version moves when another connection
 * commits, total_changes() when this one writes (the one connection of
 * `:memory:`). Either moving may change any row.
 */
const GENERATION = literal("SELECT data_version, total_changes() FROM pragma_data_version")

/** Filter texts a reader's excluded ids are kept for; a search uses one or two. */
const MAX_EXCLUDED_KEYS = 16

/** Per reader: the ids excludedIds found, for one generation of index.db. */
const excludedByReader = new WeakMap<SearchSql, { readonly generation: string; readonly byFilters: Map<string, ReadonlySet<number>> }>()

/**
 * The rows that may match but that the filters leave out: proposed or
 * replaced items (the partial index documents_excludable) that fail them.
 * Usually none, and the same search after search: kept per reader until
 * index.db changes, so a search neither counts them in its match nor looks
 * for replaced items among its best rows when there are none
 * (docs/decisions/0040-search-latency.md).
 */
const excludedIds = (db: SearchSql, filters: SqlText) =>
  Effect.gen(function* () {
    const [stamp] = yield* db.values(GENERATION)
    const generation = `${String(stamp?.[0])}:${String(stamp?.[1])}`
    let known = excludedByReader.get(db)
    if (known?.generation !== generation) {
      known = { generation, byFilters: new Map() }
      excludedByReader.set(db, known)
    }
    const key = `${filters.text}\u0000${JSON.stringify(filters.params)}`
    const cached = known.byFilters.get(key)
    if (cached !== undefined) return cached
    const rows = yield* db.values(sql`SELECT d.id FROM documents d INDEXED BY documents_excludable
      WHERE (d.quality = 'proposed' OR d.superseded_by IS NOT NULL) AND NOT ${filters}`)
    const ids: ReadonlySet<number> = new Set(rows.map((v) => v[0] as number))
    if (known.byFilters.size >= MAX_EXCLUDED_KEYS) known.byFilters.clear()
    known.byFilters.set(key, ids)
    return ids
  })

/**
 * Lexical candidates (spec 04 §3 step 3). The MATCH runs on its own (in a
 * CTE or a subquery) and the filters after it. Fast path: the best `limit`
 * rows by bm25 (plus a margin) straight from the full-text index, then their
 * documents with the filters; when the filters leave fewer than `limit` of a longer match,
 * the whole match is joined and filtered. Membership per group is asked for
 * the returned rows only.
 *
 * Of a longer match, the documents are read for the first `limit` rows and
 * those tied with the last of them: every later row ranks strictly lower, so
 * it is needed only when the filters leave out some of these (then the rest
 * is read too).
 */
export const candidates = (db: SearchSql, query: CandidateQuery) =>
  Effect.gen(function* () {
    const plan = planFor(query)
    const empty: CandidateSet = { candidates: [], total: 0, documentCount: 0, documentFrequency: [] }
    if (plan === undefined) return empty
    const single = plan.size === 1
    const member = (within?: RowRange) => (single ? literal("") : sql`, ${csv(plan.member(within).map((m, i) => sql`${m} AS ${literal(`m${i}`)}`))}`)
    const filters = filterClause(query.filters)
    // Asked for at most twice per search (the count, the replaced rows): read once.
    let excludedFound: ReadonlySet<number> | undefined
    const excluded = Effect.suspend(() =>
      excludedFound !== undefined ? Effect.succeed(excludedFound) : Effect.tap(excludedIds(db, filters), (ids) => void (excludedFound = ids)))
    // A margin for items the filters leave out; rarely more than a few.
    const wide = query.limit + Math.max(10, Math.ceil(query.limit / 4))

    const top = yield* db.values(sql`SELECT id, rank FROM (${plan.hits}) ORDER BY rank LIMIT ${wide}`)
    if (top.length === 0) return empty
    const rankOf = new Map(top.map(([id, rank]) => [id, rank as number]))
    const ids = top.map(([id]) => id as number)
    // Columns: ITEM_COLUMNS, the row id, then one membership per group (gathered among these ids only).
    const fetch = (some: ReadonlyArray<number>) =>
      some.length === 0 ? Effect.succeed([]) : Effect.map(
        db.values(sql`SELECT ${literal(ITEM_COLUMNS)}, d.id AS id ${member({ low: Math.min(...some), high: Math.max(...some) })}
          FROM documents d ${literal(ITEM_JOINS)} WHERE d.id IN ${inList(some)} AND ${filters}`),
        (values) => values.map((v): Fetched => ({ values: v, ref: v[0] as string, lexical: -(rankOf.get(v[ITEM_WIDTH]) ?? 0) }))
      )
    // Replaced items among the best rows that default search hides: their successors inherit their match (issue 25).
    const replacedAmong = (some: ReadonlyArray<number>, excluded: ReadonlySet<number>) =>
      query.filters.belief !== "current" || !some.some((id) => excluded.has(id)) ? Effect.succeed([]) : Effect.map(
        db.values(sql`SELECT ${literal(ITEM_COLUMNS)}, d.id AS id ${member({ low: Math.min(...some), high: Math.max(...some) })}
          FROM documents d ${literal(ITEM_JOINS)} WHERE d.id IN ${inList(some)} AND d.superseded_by IS NOT NULL AND NOT ${filters}`),
        (values) => values.map((v): Fetched => ({ values: v, ref: v[0] as string, lexical: -(rankOf.get(v[ITEM_WIDTH]) ?? 0) }))
      )
    // Columns: ITEM_COLUMNS, bm25 as lexical, then one membership per group.
    const wholeMatch = Effect.gen(function* () {
      const ranked = (yield* db.values(sql`WITH hits AS MATERIALIZED (${plan.hits}),
        ranked AS (
          SELECT h.id AS id, h.rank AS rank, d.ref AS ref FROM hits h JOIN documents d ON d.id = h.id
          WHERE ${filters} ORDER BY h.rank, d.ref LIMIT ${query.limit}
        )
        SELECT ${literal(ITEM_COLUMNS)}, -r.rank AS lexical ${member()}
        FROM ranked r JOIN documents d ON d.id = r.id ${literal(ITEM_JOINS)} ORDER BY r.rank, r.ref`)).map(
        (v): Fetched => ({ values: v, ref: v[0] as string, lexical: v[ITEM_WIDTH] as number })
      )
      const [counted] = yield* db.rows<{ n: number }>(sql`SELECT count(*) AS n FROM (${plan.ids}) m JOIN documents d ON d.id = m.id WHERE ${filters}`)
      return { rows: ranked, total: counted?.n ?? ranked.length }
    })
    const frequency = frequencyColumns(plan)
    let rows: ReadonlyArray<Fetched>
    let totals: Totals | undefined
    let total: number
    if (top.length < wide) {
      const fetched = yield* fetch(ids)
      rows = fetched.sort(byRank).slice(0, query.limit)
      total = fetched.length
    } else if (narrows(query.filters)) ({ rows, total } = yield* wholeMatch)
    else {
      let first = Math.min(ids.length, query.limit)
      while (first > 0 && first < ids.length && top[first]![1] === top[first - 1]![1]) first++
      let fetched = yield* fetch(ids.slice(0, first))
      if (fetched.length < query.limit) fetched = [...fetched, ...(yield* fetch(ids.slice(first)))]
      rows = fetched.sort(byRank).slice(0, query.limit)
      if (fetched.length < query.limit) ({ rows, total } = yield* wholeMatch)
      else {
        // Every match counts but the few proposed or replaced ones the filters leave out (a partial index finds
        // them; without any, the match is not run a second time to find none). The frequencies ride along.
        const excludedCount = (yield* excluded).size === 0 ? literal("0") : sql`(SELECT count(*) FROM documents d INDEXED BY documents_excludable
            WHERE (d.quality = 'proposed' OR d.superseded_by IS NOT NULL) AND d.id IN (SELECT id FROM (${plan.ids})) AND NOT ${filters})`
        const [counted] = yield* db.rows<Totals & { matches: number; excluded: number }>(sql`SELECT (SELECT count(*) FROM (${plan.ids})) AS matches,
          ${excludedCount} AS excluded, ${frequency.columns}`)
        total = (counted?.matches ?? 0) - (counted?.excluded ?? 0)
        totals = counted
      }
    }
    if (rows.length === 0) return empty
    // The best rows as ranked, unless the filters narrow (then the whole match was read, and a successor may not pass them).
    const replaced = narrows(query.filters) ? [] : yield* replacedAmong(ids.slice(0, Math.min(ids.length, query.limit)), yield* excluded)
    if (totals === undefined) [totals] = yield* db.rows<Totals>(sql`SELECT ${frequency.columns}`)
    const stats = frequency.read(totals)
    const matchedOf = (values: ReadonlyArray<unknown>): ReadonlyArray<boolean> => {
      const matched: Array<boolean> = []
      for (let i = 0; i < plan.size; i++) matched.push(single || values[MEMBER_AT + i] === 1)
      return matched
    }
    return {
      candidates: rows.map((c) => ({ item: itemFromRow(itemRowAt(c.values)), lexical: c.lexical, matched: matchedOf(c.values) })),
      ...(replaced.length === 0 ? {} : { replaced: replaced.map((c) => ({ item: itemFromRow(itemRowAt(c.values)), lexical: c.lexical, matched: matchedOf(c.values) })) }),
      total,
      ...stats
    } satisfies CandidateSet
  })

/** The items with these refs that pass the filters, in the order given. */
export const itemsByRef = (db: SearchSql, refs: ReadonlyArray<string>, filters: ItemFilters) =>
  Effect.gen(function* () {
    if (refs.length === 0) return []
    const rows = yield* db.values(sql`SELECT ${literal(ITEM_COLUMNS)} FROM documents d ${literal(ITEM_JOINS)}
      WHERE d.ref IN ${inList(refs)} AND ${filterClause(filters)}`)
    const byRef = new Map(rows.map((v) => [v[0] as string, itemFromRow(itemRowAt(v))]))
    return refs.flatMap((ref) => byRef.get(ref) ?? [])
  })

/** The first `chars` characters of these items' content, by ref (json_extract reads it without parsing the document in JS). */
export const excerpts = (db: SearchSql, refs: ReadonlyArray<string>, chars: number) =>
  Effect.gen(function* () {
    if (refs.length === 0) return new Map<string, string>()
    const rows = yield* db.values(sql`SELECT d.ref, substr(json_extract(j.doc, '$.content'), 1, ${chars})
      FROM documents d JOIN document_json j ON j.id = d.id WHERE d.ref IN ${inList(refs)}`)
    return new Map(rows.flatMap(([ref, text]) => (typeof text === "string" ? [[ref as string, text] as const] : [])))
  })

/** Items under a concept-id prefix (and bundle), sorted by ref. */
export const browse = (db: SearchSql, query: BrowseQuery) =>
  Effect.gen(function* () {
    const where = [
      ...(query.bundle === undefined ? [] : [sql`d.bundle = ${query.bundle}`]),
      ...(query.prefix === "" ? [] : [sql`substr(d.concept_id, 1, length(${query.prefix})) = ${query.prefix}`]),
      filterClause(query.filters)
    ]
    // Columns: ITEM_COLUMNS, then the number of items before the limit.
    const rows = yield* db.values(sql`SELECT ${literal(ITEM_COLUMNS)}, count(*) OVER () AS total
      FROM documents d ${literal(ITEM_JOINS)} WHERE ${and(where)} ORDER BY d.ref LIMIT ${query.limit}`)
    return { items: rows.map((v) => itemFromRow(itemRowAt(v))), total: (rows[0]?.[ITEM_WIDTH] as number | undefined) ?? 0 }
  })

/** The statement of lastIndexed, also asked outside Effect by the search fast path (layers/SearchLive.ts). */
export const LAST_INDEXED = literal("SELECT value FROM meta WHERE key = 'indexed_at'")

/** When index.db was last built (meta `indexed_at`); undefined before the first build (R-WS-2). */
export const lastIndexed = (db: SearchSql) => Effect.map(db.rows<{ readonly value: string }>(LAST_INDEXED), (rows) => rows[0]?.value)
