import { Effect, Layer } from "effect"
import { MemoryStore, type ArchiveEntry, type ArchiveState } from "../../services/MemoryStore.js"
import { immediateTransaction } from "./Database.js"
import { sqlFailure } from "./LazyDatabase.js"
import { makeStateDb, StateDb } from "./StateDb.js"

interface ArchiveRow {
  readonly id: number
  readonly bundle: string
  readonly ref: string
  readonly path: string
  readonly digest: string
  readonly bytes: number
  readonly state: string
  readonly reason: string
  readonly successors: string
  readonly dispositions: string
  readonly proposal_id: string | null
  readonly retired_at: string
  readonly hold: number
  readonly overlay: number
  readonly restored_at: string | null
  readonly restore_proposal: string | null
  readonly purged_at: string | null
}

const toEntry = (row: ArchiveRow): ArchiveEntry => ({
  id: row.id,
  bundle: row.bundle,
  ref: row.ref,
  path: row.path,
  digest: row.digest,
  bytes: row.bytes,
  state: row.state as ArchiveState,
  reason: row.reason,
  successors: JSON.parse(row.successors) as ReadonlyArray<string>,
  dispositions: JSON.parse(row.dispositions) as ArchiveEntry["dispositions"],
  ...(row.proposal_id === null ? {} : { proposalId: row.proposal_id }),
  retiredAt: row.retired_at,
  hold: row.hold === 1,
  overlay: row.overlay === 1,
  ...(row.restored_at === null ? {} : { restoredAt: row.restored_at }),
  ...(row.restore_proposal === null ? {} : { restoreProposal: row.restore_proposal }),
  ...(row.purged_at === null ? {} : { purgedAt: row.purged_at })
})

/** MemoryStore over the shared state.db connection (migration 0011_memory). */
export const memoryStoreFrom = (stateDb: StateDb["Type"]) =>
  Effect.sync(() => {
    const db = stateDb.client
    const fail = sqlFailure(stateDb.filename)
    return MemoryStore.of({
      record: (entries) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            Effect.forEach(entries, (e) =>
              sql<ArchiveRow>`INSERT INTO memory_archive (bundle, ref, path, digest, bytes, state, reason, successors, dispositions, proposal_id, retired_at, overlay)
                VALUES (${e.bundle}, ${e.ref}, ${e.path}, ${e.digest}, ${e.bytes}, ${e.state}, ${e.reason}, ${JSON.stringify(e.successors)}, ${JSON.stringify(e.dispositions)},
                  ${e.proposalId ?? null}, ${e.retiredAt}, ${e.overlay ? 1 : 0}) RETURNING *`.pipe(Effect.map((rows) => toEntry(rows[0]!))))
          ).pipe(Effect.mapError(fail))
        ),
      list: (filter) =>
        Effect.flatMap(db, (sql) => {
          const where = [
            ...(filter.bundle === undefined ? [] : [sql`bundle = ${filter.bundle}`]),
            ...(filter.ref === undefined ? [] : [sql`ref = ${filter.ref}`]),
            ...(filter.states === undefined ? [] : [sql.in("state", [...filter.states])])
          ]
          return sql<ArchiveRow>`SELECT * FROM memory_archive WHERE ${sql.and(where)} ORDER BY retired_at, id`.pipe(
            Effect.map((rows) => rows.map(toEntry)),
            Effect.mapError(fail)
          )
        }),
      setHold: (id, hold) =>
        Effect.flatMap(db, (sql) => immediateTransaction(sql, sql`UPDATE memory_archive SET hold = ${hold ? 1 : 0} WHERE id = ${id}`).pipe(Effect.asVoid, Effect.mapError(fail))),
      markRestored: (id, at, proposalId) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(sql, sql`UPDATE memory_archive SET state = 'restored', restored_at = ${at}, restore_proposal = ${proposalId ?? null} WHERE id = ${id}`).pipe(
            Effect.asVoid,
            Effect.mapError(fail)
          )
        ),
      markPurged: (ids, at) =>
        ids.length === 0
          ? Effect.void
          : Effect.flatMap(db, (sql) =>
            immediateTransaction(sql, sql`UPDATE memory_archive SET state = 'purged', purged_at = ${at} WHERE ${sql.in("id", [...ids])}`).pipe(Effect.asVoid, Effect.mapError(fail))),
      renameBundle: (from, to) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            Effect.zipRight(
              sql`UPDATE memory_archive SET bundle = ${to} WHERE bundle = ${from}`,
              // SQLite measures the name itself: substr counts characters, JS .length counts UTF-16 units.
              sql`UPDATE memory_archive SET ref = ${to} || substr(ref, length(${from}) + 1) WHERE substr(ref, 1, length(${from}) + 2) = ${`${from}//`}`
            )
          ).pipe(Effect.asVoid, Effect.mapError(fail))
        )
    })
  })

/** Needs StateDb (StateDbLive in AkmLive). */
export const MemoryStoreSqlite = Layer.effect(MemoryStore, Effect.flatMap(StateDb, memoryStoreFrom))

/** MemoryStore in an in-memory state.db, for tests. */
export const MemoryStoreMemory = Layer.scoped(MemoryStore, Effect.flatMap(makeStateDb(":memory:"), memoryStoreFrom))
