import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect } from "effect"
import type { Evidence, EvidenceInput, EvidenceKind, EvidenceSource } from "../../domain/Evidence.js"
import { evidenceHash, evidenceId } from "../../domain/EvidenceIdentity.js"
import type { EvidenceStore } from "../../services/EvidenceStore.js"
import type { StateStoreError } from "../../services/StateStore.js"

/**
 * The evidence table's row, shared by state.db's layer (EvidenceStoreSqlite)
 * and the team database's (postgres/EvidenceStorePg): the two tables have the
 * same columns, so the mapping lives once.
 */
// A type, not an interface: sql.insert takes it as a record.
export type EvidenceRow = {
  readonly id: string
  readonly hash: string
  readonly independence_key: string
  readonly kind: EvidenceKind
  readonly source: EvidenceSource
  readonly ref: string | null
  readonly note: string
  readonly query: string | null
  readonly origin: string | null
  readonly observed_at: string | null
  /** JSON (state.db 0012_evidence_data, PostgreSQL 0007_evidence_data); NULL for rows without data. */
  readonly data: string | null
  readonly recorded_at: string
  readonly status: Evidence["status"]
}

export const toEvidence = (row: EvidenceRow): Evidence => ({
  id: row.id,
  hash: row.hash,
  kind: row.kind,
  source: row.source,
  ...(row.ref === null ? {} : { ref: row.ref }),
  note: row.note,
  independenceKey: row.independence_key,
  ...(row.query === null ? {} : { query: row.query }),
  ...(row.origin === null ? {} : { origin: row.origin }),
  ...(row.observed_at === null ? {} : { observedAt: row.observed_at }),
  ...(row.data === null ? {} : { data: JSON.parse(row.data) as Record<string, unknown> }),
  recordedAt: row.recorded_at,
  status: row.status
})

/** The row a new observation is inserted as (status open); its hash and independence key find it again. */
export const evidenceInsertRow = (input: EvidenceInput, now: number): EvidenceRow => {
  const hash = evidenceHash(input)
  const id = evidenceId(hash, input.independenceKey)
  return {
    id,
    hash,
    independence_key: input.independenceKey ?? id,
    kind: input.kind,
    source: input.source,
    ref: input.ref ?? null,
    note: input.note,
    query: input.query ?? null,
    origin: input.origin ?? null,
    observed_at: input.observedAt ?? null,
    data: input.data === undefined ? null : JSON.stringify(input.data),
    recorded_at: new Date(now).toISOString(),
    status: "open"
  }
}

/** The evidence table's columns as EvidenceRow reads them (PostgreSQL's table adds `seq`). */
export const EVIDENCE_COLUMNS = "id, hash, independence_key, kind, source, ref, note, query, origin, observed_at, recorded_at, status, data"

/**
 * EvidenceStore.add on either database, given how it runs statements in one
 * transaction: each observation inserted unless its (hash, independence key)
 * is there already, then the row as stored, whoever stored it first.
 */
export const addEvidence = (write: <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>) => Effect.Effect<A, StateStoreError>): EvidenceStore["Type"]["add"] => (inputs) =>
  inputs.length === 0
    ? Effect.succeed([])
    : Effect.flatMap(Clock.currentTimeMillis, (now) =>
      write((sql) =>
        Effect.forEach(inputs, (input) => {
          const row = evidenceInsertRow(input, now)
          // The same observation again is the row already there, with its status (a dismissed row stays dismissed).
          return sql`INSERT INTO evidence ${sql.insert(row)} ON CONFLICT DO NOTHING`.pipe(
            Effect.zipRight(sql<EvidenceRow>`SELECT ${sql.literal(EVIDENCE_COLUMNS)} FROM evidence WHERE hash = ${row.hash} AND independence_key = ${row.independence_key}`),
            Effect.map((rows) => toEvidence(rows[0]!))
          )
        })
      ))
