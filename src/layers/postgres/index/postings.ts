import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The index's own inverted lists (decision 0041): per lexeme and block of
 * 1,024 item ids, one packed list of (id, weighted frequency, item length),
 * what FTS5 keeps in its data table. A word search reads the lists of its
 * lexemes (a few rows per lexeme) and scores every match with bm25 in
 * TypeScript, instead of reading and decompressing every matching item's
 * tsvector in the database. A change rewrites only the blocks of the items it
 * touched, in the same transaction, so readers never see lists and items apart.
 */
export const BLOCK_BITS = 10
const BLOCK_SIZE = 1 << BLOCK_BITS
/** Bytes per entry: id (int4), weighted frequency (float4), item length in tokens (float4); network byte order. */
export const ENTRY_BYTES = 12

/** A posting's weighted frequency: each occurrence its field's weight (words.ts LABEL_WEIGHT: A 10, B 5, C 2.5, D 1). */
const FREQUENCY = `(10 * coalesce(cardinality(array_positions(u.weights, 'A')), 0) + 5 * coalesce(cardinality(array_positions(u.weights, 'B')), 0)
  + 2.5 * coalesce(cardinality(array_positions(u.weights, 'C')), 0) + coalesce(cardinality(array_positions(u.weights, 'D')), 0))::float4`

/** The rows of idx_postings for the items whose ids `source` yields as `d` (an idx_documents row set). */
export const POSTINGS_OF = (source: string) => `SELECT u.lexeme, d.id >> ${BLOCK_BITS}, count(*)::int,
    string_agg(int4send(d.id) || float4send(${FREQUENCY}) || float4send(d.words_length::float4), ''::bytea ORDER BY d.id)
  FROM ${source}, unnest(d.words) u GROUP BY 1, 2`

/** Every item's lists, written by migration 0002 for an index built before it. */
export const ALL_POSTINGS = `INSERT INTO idx_postings (lexeme, block, docs, data) ${POSTINGS_OF("idx_documents d")}`

/**
 * Moves the index generation: what a reader keeps between searches (query.ts
 * SearchCache) is stale once it moves. The writing transaction's id, never a
 * counter: a rolled-back run must not leave a number the next run reuses.
 */
export const bumpGeneration = (sql: SqlClient.SqlClient) =>
  sql`INSERT INTO idx_meta (key, value) VALUES ('generation', pg_current_xact_id()::text)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`.raw

/** Rewrites the lists of the blocks holding these item ids (changed, added or deleted) and moves the generation. */
export const refreshPostings = (sql: SqlClient.SqlClient, ids: Iterable<number>) =>
  Effect.suspend(() => {
    const blocks = [...new Set([...ids].map((id) => id >> BLOCK_BITS))].sort((a, b) => a - b)
    if (blocks.length === 0) return Effect.void
    return Effect.gen(function* () {
      // Integers made here, inlined: one array literal instead of a parameter per block.
      const list = sql.literal(`'{${blocks.join(",")}}'::int[]`)
      yield* sql`DELETE FROM idx_postings WHERE block = ANY(${list})`.raw
      // One range scan of the primary key per block.
      yield* sql`INSERT INTO idx_postings (lexeme, block, docs, data) ${sql.literal(POSTINGS_OF(
        `unnest('{${blocks.join(",")}}'::int[]) AS b(b) JOIN idx_documents d ON d.id >= b.b * ${BLOCK_SIZE} AND d.id < (b.b + 1) * ${BLOCK_SIZE}`
      ))}`.raw
      yield* bumpGeneration(sql)
    })
  })

/** One list as read: its lexeme and its packed entries. */
export interface PostingRow {
  readonly lexeme: string
  readonly block: number
  readonly data: Uint8Array
}

/**
 * What the lists say about a query's groups (each a set of alternative
 * lexemes): per matching item its length and its weighted frequency per group,
 * and per group how many items contain it.
 */
export interface Matches {
  readonly count: number
  readonly ids: Int32Array
  readonly lengths: Float64Array
  /** `count × groups` frequencies, item-major. */
  readonly frequencies: Float64Array
  readonly documentFrequency: ReadonlyArray<number>
}

export const readMatches = (rows: ReadonlyArray<PostingRow>, groups: ReadonlyArray<ReadonlyArray<string>>): Matches => {
  const size = groups.length
  const groupsOf = new Map<string, Array<number>>()
  groups.forEach((lexemes, g) => {
    for (const lexeme of new Set(lexemes)) {
      const list = groupsOf.get(lexeme) ?? []
      list.push(g)
      groupsOf.set(lexeme, list)
    }
  })
  const byBlock = new Map<number, Array<PostingRow>>()
  let bound = 0
  for (const row of rows) {
    const list = byBlock.get(row.block) ?? []
    list.push(row)
    byBlock.set(row.block, list)
    bound += Math.floor(row.data.byteLength / ENTRY_BYTES)
  }
  // Sized for the most matches the lists can hold: no growing arrays on the way.
  const scratch = new Float64Array(size * BLOCK_SIZE)
  const length = new Float64Array(BLOCK_SIZE)
  const seen = new Uint8Array(BLOCK_SIZE)
  const touched = new Int32Array(BLOCK_SIZE)
  const ids = new Int32Array(bound)
  const lengths = new Float64Array(bound)
  const frequencies = new Float64Array(bound * size)
  const documentFrequency = new Array<number>(size).fill(0)
  let count = 0
  for (const block of [...byBlock.keys()].sort((a, b) => a - b)) {
    const base = block * BLOCK_SIZE
    let touches = 0
    for (const row of byBlock.get(block)!) {
      const targets = groupsOf.get(row.lexeme)
      if (targets === undefined) continue
      const view = new DataView(row.data.buffer, row.data.byteOffset, row.data.byteLength)
      for (let at = 0; at + ENTRY_BYTES <= row.data.byteLength; at += ENTRY_BYTES) {
        const offset = view.getInt32(at) - base
        if (offset < 0 || offset >= BLOCK_SIZE) continue
        if (seen[offset] === 0) {
          seen[offset] = 1
          touched[touches++] = offset
          length[offset] = view.getFloat32(at + 8)
        }
        const f = view.getFloat32(at + 4)
        for (const g of targets) scratch[g * BLOCK_SIZE + offset] = scratch[g * BLOCK_SIZE + offset]! + f
      }
    }
    touched.subarray(0, touches).sort()
    for (let t = 0; t < touches; t++) {
      const offset = touched[t]!
      ids[count] = base + offset
      lengths[count] = length[offset]!
      for (let g = 0; g < size; g++) {
        const f = scratch[g * BLOCK_SIZE + offset]!
        frequencies[count * size + g] = f
        if (f > 0) documentFrequency[g]!++
        scratch[g * BLOCK_SIZE + offset] = 0
      }
      seen[offset] = 0
      count++
    }
  }
  return { count, ids, lengths, frequencies, documentFrequency }
}

/** The `k`-th largest of these scores (or -Infinity when there are fewer): a bounded min-heap. */
export const kthLargest = (scores: ArrayLike<number>, k: number): number => {
  if (k <= 0) return Infinity
  const heap: Array<number> = []
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < heap.length && heap[l]! < heap[m]!) m = l
      if (r < heap.length && heap[r]! < heap[m]!) m = r
      if (m === i) return
      ;[heap[i], heap[m]] = [heap[m]!, heap[i]!]
      i = m
    }
  }
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!
    if (heap.length < k) {
      heap.push(s)
      for (let i = heap.length - 1; i > 0;) {
        const p = (i - 1) >> 1
        if (heap[p]! <= heap[i]!) break
        ;[heap[i], heap[p]] = [heap[p]!, heap[i]!]
        i = p
      }
    } else if (s > heap[0]!) {
      heap[0] = s
      down(0)
    }
  }
  return heap.length < k ? -Infinity : heap[0]!
}
