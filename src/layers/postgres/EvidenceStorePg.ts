import type * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer } from "effect"
import { evidenceHash } from "../../domain/EvidenceIdentity.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { addEvidence, EVIDENCE_COLUMNS, toEvidence, type EvidenceRow } from "../sqlite/evidence.js"
import { pgRun } from "./pgRun.js"
import { PgStateDb } from "./PgStateDb.js"

/** Rows of a bundle: the ref starts with `bundle//` (compared as text, no LIKE pattern to escape). */
const inBundle = (sql: PgClient.PgClient, bundle: string) => sql`left(ref, length(${`${bundle}//`})) = ${`${bundle}//`}`

/**
 * EvidenceStore on the team database (storage.kind: postgres; decision 0042),
 * the table of migration 0005_evidence: the same contract as state.db's
 * (test/services/evidence-store.contract.test.ts). Adding is idempotent by
 * (hash, independence key) across servers: ON CONFLICT DO NOTHING, then the
 * row as stored, whichever server stored it first.
 */
export const makeEvidenceStorePg = (db: PgStateDb["Type"]) => {
  const { read, write } = pgRun(db)
  const select = (sql: PgClient.PgClient) => sql.literal(`SELECT ${EVIDENCE_COLUMNS} FROM evidence`)
  return EvidenceStore.of({
    add: addEvidence(write),

    list: ({ ref, kind, status, bundle, source, limit = 1000 }) =>
      read((sql) =>
        sql<EvidenceRow>`${select(sql)} WHERE ${sql.and([
          ...(ref === undefined ? [] : [sql`ref = ${ref}`]),
          ...(kind === undefined ? [] : [sql`kind = ${kind}`]),
          ...(status === undefined ? [] : [sql`status = ${status}`]),
          ...(bundle === undefined ? [] : [inBundle(sql, bundle)]),
          ...(source === undefined ? [] : [sql`source = ${source}`])
        ])} ORDER BY recorded_at DESC, seq DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(toEvidence)))),

    get: (ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : read((sql) => sql<EvidenceRow>`${select(sql)} WHERE ${sql.in("id", ids)} ORDER BY recorded_at DESC, seq DESC`.pipe(Effect.map((rows) => rows.map(toEvidence)))),

    independentCount: (rows) => new Set(rows.map((row) => row.independenceKey ?? row.id)).size,

    mark: (ids, status) => (ids.length === 0 ? Effect.void : write((sql) => sql`UPDATE evidence SET status = ${status} WHERE ${sql.in("id", ids)}`.pipe(Effect.asVoid))),

    idsStartingWith: (prefix, limit) =>
      read((sql) =>
        sql<{ id: string }>`SELECT id FROM evidence WHERE left(id, length(${prefix})) = ${prefix} ORDER BY id LIMIT ${limit}`.pipe(
          Effect.map((rows) => rows.map((r) => r.id))
        )),

    renameBundle: (from, to) =>
      write((sql) =>
        Effect.gen(function* () {
          const rows = yield* sql<EvidenceRow>`${select(sql)} WHERE ${inBundle(sql, from)} FOR UPDATE`
          for (const row of rows) {
            const ref = `${to}${row.ref!.slice(from.length)}`
            const hash = evidenceHash({ kind: row.kind, ref, note: row.note, query: row.query ?? undefined, origin: row.origin ?? undefined })
            // A row already there under the new name (a repeated rename after a crash, a re-collection) is that observation.
            const taken = yield* sql<{ id: string }>`SELECT id FROM evidence WHERE hash = ${hash} AND independence_key = ${row.independence_key} AND id <> ${row.id}`
            if (taken.length > 0) yield* sql`DELETE FROM evidence WHERE id = ${row.id}`
            else yield* sql`UPDATE evidence SET ref = ${ref}, hash = ${hash} WHERE id = ${row.id}`
          }
        }))
  })
}

/** Needs PgStateDb (StateStoresLive provides it in postgres mode). */
export const EvidenceStorePg = Layer.effect(EvidenceStore, Effect.map(PgStateDb, makeEvidenceStorePg))
