import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Effect } from "effect"
import type { ItemFilters } from "../../../domain/Search.js"
import type { BrowseQuery, Candidate, CandidateQuery, CandidateSet, IndexedItem } from "../../../services/IndexStore.js"
import { itemFromRow as itemOf, type ItemRow as StoredRow } from "../../sqlite/index/rows.js"
import { absoluteFrom } from "./paths.js"
import { filterClause, ITEM_COLUMNS, ITEM_JOINS, narrows } from "./columns.js"
import { bm25, groupFrequencies, inverseFrequency, type Occurrences } from "./bm25.js"
import { kthLargest, readMatches, type PostingRow } from "./postings.js"
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

/** What a default search's filters leave out: few items (proposed, replaced, retired), and which of them are replaced. */
interface Excluded {
  readonly excluded: ReadonlySet<number>
  readonly succeeded: ReadonlySet<number>
}

/**
 * What one reader keeps between searches, valid for one index generation
 * (every change of the documents moves it, postings.ts): the items a
 * default search's filters leave out, per filter (as decision 0040 keeps them
 * for index.db), and the lists of recently searched lexemes, up to
 * LIST_CACHE_BYTES (least recently used first out).
 */
export interface SearchCache {
  generation: string | undefined
  /** The corpus size and word total (idx_bundles) at this generation: every persist that changes them moves it. */
  sizes: { readonly n: number; readonly words: number } | undefined
  excluded: { readonly key: string; readonly value: Excluded } | undefined
  readonly lists: Map<string, ReadonlyArray<PostingRow>>
  bytes: number
}

const LIST_CACHE_BYTES = 32 * 1024 * 1024

export const makeSearchCache = (): SearchCache => ({ generation: undefined, sizes: undefined, excluded: undefined, lists: new Map(), bytes: 0 })

const sizeOf = (rows: ReadonlyArray<PostingRow>): number => rows.reduce((sum, r) => sum + r.data.byteLength + 64, 64)

/** Moves the cache to `generation`, forgetting what it held for another. */
const advance = (cache: SearchCache, generation: string) => {
  if (cache.generation === generation) return
  cache.generation = generation
  cache.sizes = undefined
  cache.excluded = undefined
  cache.lists.clear()
  cache.bytes = 0
}

const remember = (cache: SearchCache, lexeme: string, rows: ReadonlyArray<PostingRow>) => {
  const size = sizeOf(rows)
  if (size > LIST_CACHE_BYTES / 4) return
  cache.lists.set(lexeme, rows)
  cache.bytes += size
  for (const [old, list] of cache.lists) {
    if (cache.bytes <= LIST_CACHE_BYTES) break
    cache.lists.delete(old)
    cache.bytes -= sizeOf(list)
  }
}

const recall = (cache: SearchCache, lexeme: string): ReadonlyArray<PostingRow> | undefined => {
  const rows = cache.lists.get(lexeme)
  if (rows !== undefined) {
    cache.lists.delete(lexeme)
    cache.lists.set(lexeme, rows)
  }
  return rows
}

/** The items the filters leave out: read once per generation and filter. */
const exclusionKey = (filters: ItemFilters) => `${filters.includeProposed}|${filters.belief}`

const exclusionsFor = (sql: SqlClient.SqlClient, cache: SearchCache, filters: ItemFilters): Effect.Effect<Excluded, SqlError> =>
  Effect.suspend(() => {
    const key = exclusionKey(filters)
    const generation = cache.generation
    if (cache.excluded?.key === key) return Effect.succeed(cache.excluded.value)
    return Effect.map(sql<{ id: number; succeeded: boolean }>`SELECT d.id, d.superseded_by IS NOT NULL AS succeeded FROM idx_documents d
      WHERE (d.quality = 'proposed' OR d.superseded_by IS NOT NULL OR d.belief_state = 'retired') AND NOT coalesce(${filterClause(sql, filters)}, FALSE)`, (rows) => {
      const value = { excluded: new Set(rows.map((r) => r.id)), succeeded: new Set(rows.filter((r) => r.succeeded).map((r) => r.id)) }
      if (cache.generation === generation) cache.excluded = { key, value }
      return value
    })
  })

/**
 * Word search through the index's own lists (decision 0041): one statement
 * reads the lists of the query's lexemes with the corpus sizes and the
 * generation; bm25 scores every match here (exact, as FTS5 ranks every
 * match); a second reads the rows of the best. When every list, the sizes and
 * the exclusions are held for the generation last seen, the first statement
 * is skipped and the second carries the generation: if it has moved, the
 * answer is dropped and the search runs again from the database.
 * Plain words and default filters only: phrases, prefixes and narrowing
 * filters take the tsvector path.
 */
const fromPostings = (sql: SqlClient.SqlClient, query: CandidateQuery, groups: ReadonlyArray<GroupLexemes>, cache: SearchCache) =>
  Effect.gen(function* () {
    const empty: CandidateSet = { candidates: [], total: 0, documentCount: 0, documentFrequency: [] }
    const lexemes = [...new Set(groups.flatMap((g) => g.exact))]
    if (lexemes.length === 0) return empty
    const held = cache.generation
    if (held !== undefined && cache.sizes !== undefined && cache.excluded?.key === exclusionKey(query.filters) && lexemes.every((l) => cache.lists.has(l))) {
      const lists = lexemes.flatMap((l) => recall(cache, l) ?? [])
      const fast = yield* scoreLists(sql, query, groups, lists, cache.sizes, cache.excluded.value, held)
      if (fast !== undefined) return fast
    }
    const read = (wanted: ReadonlyArray<string>) =>
      sql<{ n: number; words: number; generation: string | null; lexeme: string | null; block: number | null; data: Uint8Array | null }>`SELECT s.n, s.words,
          s.generation, p.lexeme, p.block, p.data
        FROM (SELECT (SELECT coalesce(sum(items), 0)::int FROM idx_bundles) AS n, (SELECT coalesce(sum(words), 0)::float8 FROM idx_bundles) AS words,
          (SELECT value FROM idx_meta WHERE key = 'generation') AS generation) s
        LEFT JOIN idx_postings p ON ${wanted.length === 0 ? sql.literal("FALSE") : sql`p.lexeme IN ${sql.in(wanted)}`}`
    // Only the lists not held for the generation last seen; when it has moved, all of them again.
    let wanted = cache.generation === undefined ? lexemes : lexemes.filter((l) => !cache.lists.has(l))
    let rows = yield* read(wanted)
    const head = rows[0]
    if (head === undefined) return empty
    const generation = head.generation ?? "0"
    if (generation !== cache.generation) {
      const partial = wanted.length < lexemes.length
      advance(cache, generation)
      if (partial) {
        wanted = lexemes
        rows = yield* read(wanted)
      }
    }
    const fetched = new Map<string, Array<PostingRow>>(wanted.map((l) => [l, []]))
    for (const row of rows) if (row.lexeme !== null && row.data !== null && row.block !== null) fetched.get(row.lexeme)?.push({ lexeme: row.lexeme, block: row.block, data: row.data })
    const lists: Array<PostingRow> = []
    for (const lexeme of lexemes) {
      const got = fetched.get(lexeme)
      if (got !== undefined) {
        if (cache.generation === generation) remember(cache, lexeme, got)
        lists.push(...got)
      } else lists.push(...(recall(cache, lexeme) ?? []))
    }
    const sizes = { n: head.n ?? 0, words: head.words ?? 0 }
    if (cache.generation === generation) cache.sizes = sizes
    const excludedSet = yield* exclusionsFor(sql, cache, query.filters)
    return (yield* scoreLists(sql, query, groups, lists, sizes, excludedSet, undefined)) ?? empty
  })

/**
 * bm25 over every match of these lists, then the rows of the best `limit`.
 * With `generation`, the rows statement also reads the index's generation and
 * the answer is undefined when it is not that one (the lists were stale), or
 * when nothing matches (nothing read to check it with).
 */
const scoreLists = (
  sql: SqlClient.SqlClient,
  query: CandidateQuery,
  groups: ReadonlyArray<GroupLexemes>,
  lists: ReadonlyArray<PostingRow>,
  sizes: { readonly n: number; readonly words: number },
  { excluded, succeeded }: Excluded,
  generation: string | undefined
) =>
  Effect.gen(function* () {
    const empty: CandidateSet = { candidates: [], total: 0, documentCount: 0, documentFrequency: [] }
    const matches = readMatches(lists, groups.map((g) => g.exact))
    const documentCount = sizes.n
    const inverse = matches.documentFrequency.map((n) => inverseFrequency(n, documentCount))
    const average = documentCount > 0 ? sizes.words / documentCount : 0
    const size = groups.length
    const count = matches.count
    const scores = new Float64Array(count)
    const passing = new Float64Array(count)
    let total = 0
    for (let i = 0; i < count; i++) {
      scores[i] = bm25(matches.frequencies, inverse, matches.lengths[i]!, average, i * size)
      if (excluded.size === 0 || !excluded.has(matches.ids[i]!)) passing[total++] = scores[i]!
    }
    if (total === 0) return generation === undefined ? empty : undefined
    // The best `limit` that pass: those above the last one's score for sure, and of the matches tied with it the
    // first by ref, as index.db breaks ties (copies of one text score alike: the database picks them by ref).
    const cut = kthLargest(passing.subarray(0, total), query.limit)
    const above: Array<number> = []
    const tied: Array<number> = []
    for (let i = 0; i < count; i++) {
      if (scores[i]! < cut || excluded.has(matches.ids[i]!)) continue
      if (scores[i]! > cut) above.push(i)
      else tied.push(i)
    }
    // Replaced items among the best of all matches (filters aside) that default search hides: their successors inherit their match (issue 25).
    const hiddenAt: Array<number> = []
    if (query.filters.belief === "current" && succeeded.size > 0) {
      const all = kthLargest(scores, query.limit)
      for (let i = 0; i < count; i++) if (scores[i]! >= all && succeeded.has(matches.ids[i]!) && excluded.has(matches.ids[i]!)) hiddenAt.push(i)
    }
    const at = new Map([...above, ...tied, ...hiddenAt].map((i) => [matches.ids[i]!, i] as const))
    const sure = [...above, ...hiddenAt].map((i) => matches.ids[i]!)
    const picked = sql.join(" UNION ALL ", false)([
      ...(sure.length === 0 ? [] : [sql`SELECT id FROM idx_documents WHERE id IN ${sql.in(sure)}`]),
      ...(tied.length === 0 ? [] : [sql`(SELECT id FROM idx_documents WHERE id IN ${sql.in(tied.map((i) => matches.ids[i]!))}
        ORDER BY ref COLLATE "C" LIMIT ${query.limit - above.length})`])
    ])
    // One statement: its generation and its rows come from one snapshot.
    const checked = generation === undefined ? sql.literal("") : sql.literal(", (SELECT value FROM idx_meta WHERE key = 'generation') AS generation")
    const items = yield* sql<ItemRow & { id: number; generation?: string | null }>`SELECT ${sql.literal(ITEM_COLUMNS)}, d.id AS id${checked}
      FROM (${picked}) k JOIN idx_documents d ON d.id = k.id ${sql.literal(ITEM_JOINS)}`
    if (generation !== undefined && (items.length === 0 || (items[0]!.generation ?? "0") !== generation)) return undefined
    const candidateAt = (row: ItemRow & { id: number }): Candidate => {
      const i = at.get(row.id)!
      const matched: Array<boolean> = []
      for (let g = 0; g < size; g++) matched.push(matches.frequencies[i * size + g]! > 0)
      return { item: itemFromRow(row), lexical: scores[i]!, matched }
    }
    const found = items.filter((row) => !excluded.has(row.id)).map(candidateAt).sort(byLexical).slice(0, query.limit)
    const hidden = items.filter((row) => excluded.has(row.id)).map(candidateAt).sort(byLexical)
    return {
      candidates: found,
      ...(hidden.length === 0 ? {} : { replaced: hidden }),
      total,
      documentCount,
      documentFrequency: matches.documentFrequency
    } satisfies CandidateSet
  })

/**
 * Lexical candidates (spec 04 §3 step 3): the match through its GIN index,
 * filters after it, the number of all that pass, and document frequencies
 * over the whole index as FTS5's vocabulary counts them. Words: ts_rank picks
 * twice the `limit` (plus a margin), then bm25 over their occurrences
 * (bm25.ts) orders them as index.db would and keeps `limit`. Substrings: the
 * weighted LIKE score, as index.db's LIKE plan.
 */
export const candidates = (sql: SqlClient.SqlClient, query: CandidateQuery, cache: SearchCache) =>
  Effect.gen(function* () {
    if (query.match._tag === "Words" && !query.match.prefix && !narrows(query.filters) && query.match.groups.every((g) => !g.phrase)) {
      const groups = query.match.groups.map((g) => groupLexemes(g, false))
      return yield* fromPostings(sql, query, groups, cache)
    }
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
    // `json`, not `jsonb`: ->> on json scans the text for one key, jsonb would build the whole document first (4-20x slower).
    const rows = yield* sql<{ ref: string; text: string | null }>`SELECT d.ref, substr(d.doc::json ->> 'content', 1, ${chars}) AS text
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
