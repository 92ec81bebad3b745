import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect } from "effect"
import { utilityOf, UTILITY_HISTORY, type OutcomeKind } from "../../domain/Utility.js"
import type { StateStoreError } from "../../services/StateStore.js"
import { UsageLog, type EventSource, type FeedbackRecord, type UsageEvent, type UsageKind } from "../../services/UsageLog.js"
import { sqlFailure, type SqlDriver } from "./driver.js"
import { and, literal, sql } from "./index/sqlText.js"

/**
 * UsageLog's statements over state.db (migration 0002_usage_feedback), the
 * one place they are written: the full CLI runs them on the shared state.db
 * client (UsageLogSqlite.ts), the search fast path on a connection of its own
 * (layers/SearchLive.ts).
 */

/** A read this soon after a search that returned the item counts as choosing it from the results. */
export const SELECT_WINDOW_MS = 30 * 60 * 1000

interface UsageRow {
  readonly id: number
  readonly at: string
  readonly kind: UsageKind
  readonly ref: string | null
  readonly query: string | null
  readonly refs: string | null
  readonly source: EventSource
}

interface FeedbackRow {
  readonly id: number
  readonly at: string
  readonly ref: string
  readonly polarity: "positive" | "negative"
  readonly reason: string | null
  readonly tags: string | null
  readonly source: EventSource
}

const toUsage = (row: UsageRow): UsageEvent => ({
  id: row.id,
  at: row.at,
  kind: row.kind,
  ...(row.ref === null ? {} : { ref: row.ref }),
  ...(row.query === null ? {} : { query: row.query }),
  ...(row.refs === null ? {} : { refs: JSON.parse(row.refs) as ReadonlyArray<string> }),
  source: row.source
})

const toFeedback = (row: FeedbackRow): FeedbackRecord => ({
  id: row.id,
  at: row.at,
  ref: row.ref,
  polarity: row.polarity,
  ...(row.reason === null ? {} : { reason: row.reason }),
  ...(row.tags === null ? {} : { tags: JSON.parse(row.tags) as Record<string, string> }),
  source: row.source
})

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/**
 * Replays the ref's latest user outcomes (reads and feedback; agents and
 * audits teach nothing) and stores the result. Runs inside the writer's
 * transaction. At one instant reads replay before feedback, so a deliberate
 * vote has the last word.
 */
const recomputeUtility = (db: SqlDriver, ref: string, at: string) =>
  Effect.gen(function* () {
    const rows = yield* db.rows<{ kind: OutcomeKind; at: string }>(sql`
      SELECT kind, at FROM (
        SELECT kind, at, id, 0 AS origin FROM usage_events WHERE ref = ${ref} AND source = 'user' AND kind IN ('show', 'select')
        UNION ALL
        SELECT polarity AS kind, at, id, 1 AS origin FROM feedback WHERE ref = ${ref} AND source = 'user'
      ) ORDER BY at DESC, origin DESC, id DESC LIMIT ${UTILITY_HISTORY}`)
    const value = utilityOf(rows.map((row) => ({ kind: row.kind, atMs: Date.parse(row.at) })).reverse())
    if (value === undefined) return
    yield* db.run(sql`INSERT INTO utility (ref, value, outcomes, updated_at) VALUES (${ref}, ${value}, ${rows.length}, ${at})
      ON CONFLICT (ref) DO UPDATE SET value = excluded.value, outcomes = excluded.outcomes, updated_at = excluded.updated_at`)
  })

/** UsageLog over state.db at `filename`, through whichever driver `driver` opens. */
export const usageLogOn = (filename: string, driver: Effect.Effect<SqlDriver, StateStoreError>): UsageLog["Type"] => {
  const fail = sqlFailure(filename)
  const read = <A>(f: (db: SqlDriver) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> => Effect.flatMap(driver, (db) => Effect.mapError(f(db), fail))
  const write = <A>(f: (db: SqlDriver) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> => read((db) => db.immediate(f))

  return UsageLog.of({
    recordSearch: (query, refs, source) =>
      Effect.flatMap(now, (at) => write((db) => db.run(sql`INSERT INTO usage_events (at, kind, query, refs, source) VALUES (${at}, 'search', ${query}, ${JSON.stringify(refs)}, ${source})`))),
    recordShow: (ref, source) =>
      Effect.gen(function* () {
        const millis = yield* Clock.currentTimeMillis
        const at = new Date(millis).toISOString()
        const since = new Date(millis - SELECT_WINDOW_MS).toISOString()
        return yield* write((db) =>
          Effect.gen(function* () {
            const recent = yield* db.rows<{ n: number }>(sql`
              SELECT count(*) AS n FROM usage_events AS e, json_each(e.refs) AS r
              WHERE e.kind = 'search' AND e.source = ${source} AND e.at >= ${since} AND r.value = ${ref}`)
            const kind = (recent[0]?.n ?? 0) > 0 ? "select" as const : "show" as const
            yield* db.run(sql`INSERT INTO usage_events (at, kind, ref, source) VALUES (${at}, ${kind}, ${ref}, ${source})`)
            if (source === "user") yield* recomputeUtility(db, ref, at)
            return kind
          }))
      }),
    recordFeedback: (input) =>
      Effect.flatMap(now, (at) =>
        write((db) =>
          Effect.gen(function* () {
            const tags = input.tags === undefined || Object.keys(input.tags).length === 0 ? null : JSON.stringify(input.tags)
            const rows = yield* db.rows<{ id: number }>(sql`INSERT INTO feedback (at, ref, polarity, reason, tags, source)
              VALUES (${at}, ${input.ref}, ${input.polarity}, ${input.reason ?? null}, ${tags}, ${input.source}) RETURNING id`)
            if (input.source === "user") yield* recomputeUtility(db, input.ref, at)
            return toFeedback({ id: rows[0]!.id, at, ref: input.ref, polarity: input.polarity, reason: input.reason ?? null, tags, source: input.source })
          }))),
    feedback: ({ ref, limit = 100 }) =>
      read((db) =>
        Effect.map(
          db.rows<FeedbackRow>(
            ref === undefined ? sql`SELECT * FROM feedback ORDER BY id DESC LIMIT ${limit}` : sql`SELECT * FROM feedback WHERE ref = ${ref} ORDER BY id DESC LIMIT ${limit}`
          ),
          (rows) => rows.map(toFeedback)
        )),
    events: ({ ref, kind, limit = 100 }) =>
      read((db) =>
        Effect.map(
          db.rows<UsageRow>(sql`SELECT * FROM usage_events WHERE ${and([
            ...(ref === undefined ? [] : [sql`ref = ${ref}`]),
            ...(kind === undefined ? [] : [sql`kind = ${kind}`])
          ])} ORDER BY id DESC LIMIT ${limit}`),
          (rows) => rows.map(toUsage)
        )),
    utilities: read((db) =>
      Effect.map(
        db.rows<{ ref: string; value: number; at: string }>(literal("SELECT ref, value, updated_at AS at FROM utility ORDER BY ref")),
        (rows) => new Map(rows.map((row) => [row.ref, { value: row.value, at: row.at }] as const))
      )),
    queriesReturning: (ref, limit) =>
      read((db) =>
        Effect.map(
          db.rows<{ query: string }>(sql`SELECT e.query AS query, max(e.id) AS last FROM usage_events AS e, json_each(e.refs) AS r
            WHERE e.kind = 'search' AND e.query IS NOT NULL AND e.query != '' AND r.value = ${ref}
            GROUP BY e.query ORDER BY last DESC LIMIT ${limit}`),
          (rows) => rows.map((row) => row.query)
        )),
    utility: (ref) => read((db) => Effect.map(db.rows<{ value: number }>(sql`SELECT value FROM utility WHERE ref = ${ref}`), (rows) => rows[0]?.value)),
    renameBundle: (from, to) =>
      write((db) =>
        Effect.gen(function* () {
          // SQLite measures the name itself: substr counts characters, JS .length counts UTF-16 units.
          const prefix = `${from}//`
          const rekey = (column: string) => sql`${literal(column)} = ${to} || substr(${literal(column)}, length(${from}) + 1)`
          const owned = (column: string) => sql`substr(${literal(column)}, 1, length(${prefix})) = ${prefix}`
          yield* db.run(sql`UPDATE usage_events SET ${rekey("ref")} WHERE ${owned("ref")}`)
          yield* db.run(sql`UPDATE feedback SET ${rekey("ref")} WHERE ${owned("ref")}`)
          yield* db.run(sql`UPDATE utility SET ${rekey("ref")} WHERE ${owned("ref")}`)
          yield* db.run(sql`UPDATE usage_events SET refs = (
              SELECT json_group_array(CASE WHEN substr(r.value, 1, length(${prefix})) = ${prefix} THEN ${to} || substr(r.value, length(${from}) + 1) ELSE r.value END)
              FROM (SELECT value FROM json_each(usage_events.refs) ORDER BY key) AS r)
            WHERE kind = 'search' AND EXISTS (SELECT 1 FROM json_each(usage_events.refs) AS r WHERE substr(r.value, 1, length(${prefix})) = ${prefix})`)
        }))
  })
}
