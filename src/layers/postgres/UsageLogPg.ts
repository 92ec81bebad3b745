import type * as PgClient from "@effect/sql-pg/PgClient"
import { Clock, Effect, Layer } from "effect"
import { utilityOf, UTILITY_HISTORY, type OutcomeKind } from "../../domain/Utility.js"
import { UsageLog, type EventSource, type FeedbackRecord, type UsageEvent, type UsageKind } from "../../services/UsageLog.js"
import { SELECT_WINDOW_MS } from "../sqlite/usage.js"
import { int8, pgRun, xactLock, type Int8 } from "./pgRun.js"
import { PgStateDb } from "./PgStateDb.js"

interface UsageRow {
  readonly id: Int8
  readonly at: string
  readonly kind: UsageKind
  readonly ref: string | null
  readonly query: string | null
  readonly refs: ReadonlyArray<string> | null
  readonly source: EventSource
}

interface FeedbackRow {
  readonly id: Int8
  readonly at: string
  readonly ref: string
  readonly polarity: "positive" | "negative"
  readonly reason: string | null
  readonly tags: string | null
  readonly source: EventSource
}

const toUsage = (row: UsageRow): UsageEvent => ({
  id: int8(row.id),
  at: row.at,
  kind: row.kind,
  ...(row.ref === null ? {} : { ref: row.ref }),
  ...(row.query === null ? {} : { query: row.query }),
  ...(row.refs === null ? {} : { refs: row.refs }),
  source: row.source
})

const toFeedback = (row: FeedbackRow): FeedbackRecord => ({
  id: int8(row.id),
  at: row.at,
  ref: row.ref,
  polarity: row.polarity,
  ...(row.reason === null ? {} : { reason: row.reason }),
  ...(row.tags === null ? {} : { tags: JSON.parse(row.tags) as Record<string, string> }),
  source: row.source
})

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** The jsonb a search's refs must contain to have returned `ref`. */
const containing = (ref: string) => JSON.stringify([ref])

/**
 * Replays the ref's latest user outcomes, as usage.ts does for SQLite (reads
 * before feedback at one instant, so a vote has the last word). The caller
 * holds the ref's advisory lock, so two servers recording outcomes of one ref
 * at once store the replay of the full history, never a stale one.
 */
const recomputeUtility = (sql: PgClient.PgClient, ref: string, at: string) =>
  Effect.gen(function* () {
    const rows = yield* sql<{ kind: OutcomeKind; at: string }>`
      SELECT kind, at FROM (
        SELECT kind, at, id, 0 AS origin FROM usage_events WHERE ref = ${ref} AND source = 'user' AND kind IN ('show', 'select')
        UNION ALL
        SELECT polarity AS kind, at, id, 1 AS origin FROM feedback WHERE ref = ${ref} AND source = 'user'
      ) AS outcomes ORDER BY at DESC, origin DESC, id DESC LIMIT ${UTILITY_HISTORY}`
    const value = utilityOf(rows.map((row) => ({ kind: row.kind, atMs: Date.parse(row.at) })).reverse())
    if (value === undefined) return
    yield* sql`INSERT INTO utility (ref, value, outcomes, updated_at) VALUES (${ref}, ${value}, ${rows.length}, ${at})
      ON CONFLICT (ref) DO UPDATE SET value = excluded.value, outcomes = excluded.outcomes, updated_at = excluded.updated_at`
  })

const refLock = (sql: PgClient.PgClient, ref: string) => xactLock(sql, `akm.utility:${ref}`)

/** UsageLog on PostgreSQL (usage, feedback and utility of state.db); needs PgStateDb. */
export const UsageLogPg = Layer.effect(
  UsageLog,
  Effect.gen(function* () {
    const run = pgRun(yield* PgStateDb)
    return UsageLog.of({
      recordSearch: (query, refs, source) =>
        Effect.flatMap(now, (at) =>
          run.write((sql) =>
            sql`INSERT INTO usage_events (at, kind, query, refs, source) VALUES (${at}, 'search', ${query}, ${JSON.stringify(refs)}::jsonb, ${source})`.pipe(Effect.asVoid))),
      recordShow: (ref, source) =>
        Effect.gen(function* () {
          const millis = yield* Clock.currentTimeMillis
          const at = new Date(millis).toISOString()
          const since = new Date(millis - SELECT_WINDOW_MS).toISOString()
          return yield* run.write((sql) =>
            Effect.gen(function* () {
              if (source === "user") yield* refLock(sql, ref)
              const recent = yield* sql<{ n: Int8 }>`SELECT count(*) AS n FROM usage_events
                WHERE kind = 'search' AND source = ${source} AND at >= ${since} AND refs @> ${containing(ref)}::jsonb`
              const kind = int8(recent[0]?.n ?? 0) > 0 ? "select" as const : "show" as const
              yield* sql`INSERT INTO usage_events (at, kind, ref, source) VALUES (${at}, ${kind}, ${ref}, ${source})`
              if (source === "user") yield* recomputeUtility(sql, ref, at)
              return kind
            }))
        }),
      recordFeedback: (input) =>
        Effect.flatMap(now, (at) =>
          run.write((sql) =>
            Effect.gen(function* () {
              if (input.source === "user") yield* refLock(sql, input.ref)
              const tags = input.tags === undefined || Object.keys(input.tags).length === 0 ? null : JSON.stringify(input.tags)
              const rows = yield* sql<{ id: Int8 }>`INSERT INTO feedback (at, ref, polarity, reason, tags, source)
                VALUES (${at}, ${input.ref}, ${input.polarity}, ${input.reason ?? null}, ${tags}, ${input.source}) RETURNING id`
              if (input.source === "user") yield* recomputeUtility(sql, input.ref, at)
              return toFeedback({ id: rows[0]!.id, at, ref: input.ref, polarity: input.polarity, reason: input.reason ?? null, tags, source: input.source })
            }))),
      feedback: ({ ref, limit = 100 }) =>
        run.read((sql) =>
          Effect.map(
            ref === undefined
              ? sql<FeedbackRow>`SELECT * FROM feedback ORDER BY id DESC LIMIT ${limit}`
              : sql<FeedbackRow>`SELECT * FROM feedback WHERE ref = ${ref} ORDER BY id DESC LIMIT ${limit}`,
            (rows) => rows.map(toFeedback)
          )),
      events: ({ ref, kind, limit = 100 }) =>
        run.read((sql) =>
          Effect.map(
            sql<UsageRow>`SELECT * FROM usage_events
              WHERE ${ref === undefined ? sql`TRUE` : sql`ref = ${ref}`} AND ${kind === undefined ? sql`TRUE` : sql`kind = ${kind}`}
              ORDER BY id DESC LIMIT ${limit}`,
            (rows) => rows.map(toUsage)
          )),
      utilities: run.read((sql) =>
        Effect.map(
          sql<{ ref: string; value: number; at: string }>`SELECT ref, value, updated_at AS at FROM utility ORDER BY ref COLLATE "C"`,
          (rows) => new Map(rows.map((row) => [row.ref, { value: row.value, at: row.at }] as const))
        )),
      utility: (ref) => run.read((sql) => Effect.map(sql<{ value: number }>`SELECT value FROM utility WHERE ref = ${ref}`, (rows) => rows[0]?.value)),
      queriesReturning: (ref, limit) =>
        run.read((sql) =>
          Effect.map(
            sql<{ query: string }>`SELECT query, max(id) AS last FROM usage_events
              WHERE kind = 'search' AND query IS NOT NULL AND query <> '' AND refs @> ${containing(ref)}::jsonb
              GROUP BY query ORDER BY last DESC LIMIT ${limit}`,
            (rows) => rows.map((row) => row.query)
          )),
      renameBundle: (from, to) =>
        run.write((sql) =>
          Effect.gen(function* () {
            // PostgreSQL counts characters, as SQLite does; JS .length would count UTF-16 units.
            const prefix = `${from}//`
            const rekeyed = (column: string) => sql`${to}::text || substr(${sql(column)}, length(${from}::text) + 1)`
            for (const table of ["usage_events", "feedback", "utility"]) {
              yield* sql`UPDATE ${sql(table)} SET ref = ${rekeyed("ref")} WHERE starts_with(ref, ${prefix}::text)`
            }
            yield* sql`UPDATE usage_events SET refs = (
                SELECT jsonb_agg(CASE WHEN starts_with(r.value, ${prefix}::text) THEN ${to}::text || substr(r.value, length(${from}::text) + 1) ELSE r.value END ORDER BY r.ord)
                FROM jsonb_array_elements_text(usage_events.refs) WITH ORDINALITY AS r(value, ord))
              WHERE kind = 'search' AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(usage_events.refs) AS r(value) WHERE starts_with(r.value, ${prefix}::text))`
          }))
    })
  })
)
