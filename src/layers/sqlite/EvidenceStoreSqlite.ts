import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { evidenceHash } from "../../domain/EvidenceIdentity.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { addEvidence, toEvidence, type EvidenceRow } from "./evidence.js"
import type { StateStoreError } from "../../services/StateStore.js"
import { immediateTransaction } from "./Database.js"
import { sqlFailure } from "./LazyDatabase.js"
import { makeStateDb, StateDb } from "./StateDb.js"

/** Rows of a bundle: the ref starts with `bundle//` (SQLite measures the prefix, so it counts characters as it stores them). */
const inBundle = (sql: SqlClient.SqlClient, bundle: string) => sql`substr(ref, 1, length(${`${bundle}//`})) = ${`${bundle}//`}`

/** EvidenceStore over the shared state.db connection (migration 0005_evidence). */
export const evidenceStoreFrom = (stateDb: StateDb["Type"]) =>
  Effect.sync(() => {
    const db = stateDb.client
    const fail = sqlFailure(stateDb.filename)
    const write = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> =>
      Effect.flatMap(db, (sql) => immediateTransaction(sql, f(sql)).pipe(Effect.mapError(fail)))
    const read = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> =>
      Effect.flatMap(db, (sql) => f(sql).pipe(Effect.mapError(fail)))

    return EvidenceStore.of({
      add: addEvidence(write),

      list: ({ ref, kind, status, bundle, source, limit = 1000 }) =>
        read((sql) =>
          sql<EvidenceRow>`SELECT * FROM evidence WHERE ${sql.and([
            ...(ref === undefined ? [] : [sql`ref = ${ref}`]),
            ...(kind === undefined ? [] : [sql`kind = ${kind}`]),
            ...(status === undefined ? [] : [sql`status = ${status}`]),
            ...(bundle === undefined ? [] : [inBundle(sql, bundle)]),
            ...(source === undefined ? [] : [sql`source = ${source}`])
          ])} ORDER BY recorded_at DESC, rowid DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(toEvidence)))),

      get: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : read((sql) => sql<EvidenceRow>`SELECT * FROM evidence WHERE ${sql.in("id", ids)} ORDER BY recorded_at DESC, rowid DESC`.pipe(Effect.map((rows) => rows.map(toEvidence)))),

      independentCount: (rows) => new Set(rows.map((row) => row.independenceKey ?? row.id)).size,

      mark: (ids, status) => (ids.length === 0 ? Effect.void : write((sql) => sql`UPDATE evidence SET status = ${status} WHERE ${sql.in("id", ids)}`.pipe(Effect.asVoid))),

      idsStartingWith: (prefix, limit) =>
        read((sql) =>
          sql<{ id: string }>`SELECT id FROM evidence WHERE substr(id, 1, length(${prefix})) = ${prefix} ORDER BY id LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map((r) => r.id)))),

      renameBundle: (from, to) =>
        write((sql) =>
          Effect.gen(function* () {
            const rows = yield* sql<EvidenceRow>`SELECT * FROM evidence WHERE ${inBundle(sql, from)}`
            for (const row of rows) {
              const ref = `${to}${row.ref!.slice(from.length)}`
              const hash = evidenceHash({ kind: row.kind, ref, note: row.note, query: row.query ?? undefined, origin: row.origin ?? undefined })
              // A row already there under the new name (a repeated rename after a crash, a re-collection) is that observation.
              const updated = yield* sql<{ id: string }>`UPDATE OR IGNORE evidence SET ref = ${ref}, hash = ${hash} WHERE id = ${row.id} RETURNING id`
              if (updated.length === 0) yield* sql`DELETE FROM evidence WHERE id = ${row.id}`
            }
          }))
    })
  })

/** An EvidenceStore with its own state.db connection (tests, tools). */
export const makeEvidenceStore = (filename: string) => Effect.flatMap(makeStateDb(filename), evidenceStoreFrom)

/** Needs StateDb (StateDbLive in AkmLive, StateDbMemory in AkmTest). */
export const EvidenceStoreSqlite = Layer.effect(EvidenceStore, Effect.flatMap(StateDb, evidenceStoreFrom))

/** state.db in memory, for tests of other programs. */
export const EvidenceStoreMemory = Layer.scoped(EvidenceStore, makeEvidenceStore(":memory:"))
