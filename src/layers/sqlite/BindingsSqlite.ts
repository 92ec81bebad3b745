import { Effect, Layer } from "effect"
import type { Binding, ExportKind } from "../../domain/RuntimeExport.js"
import { Bindings } from "../../services/Bindings.js"
import { immediateTransaction } from "./Database.js"
import { sqlFailure } from "./LazyDatabase.js"
import { makeStateDb, StateDb } from "./StateDb.js"

interface BindingRow {
  readonly alias: string
  readonly export_ref: string
  readonly kind: string
  readonly digest: string
  readonly definition: string
  readonly params: string
  readonly env: string
  readonly source: string
  readonly approved_at: string
}

const toBinding = (row: BindingRow): Binding => ({
  alias: row.alias,
  exportRef: row.export_ref,
  kind: row.kind as ExportKind,
  digest: row.digest,
  definition: row.definition,
  params: JSON.parse(row.params) as Record<string, string>,
  env: JSON.parse(row.env) as Record<string, string>,
  source: row.source,
  approvedAt: row.approved_at
})

/** Bindings over the shared state.db connection (migration 0006_bindings). */
export const bindingsFrom = (stateDb: StateDb["Type"]) =>
  Effect.sync(() => {
    const db = stateDb.client
    const fail = sqlFailure(stateDb.filename)
    return Bindings.of({
      add: (b) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            sql<{ alias: string }>`INSERT INTO bindings (alias, export_ref, kind, digest, definition, params, env, source, approved_at, created_at)
              VALUES (${b.alias}, ${b.exportRef}, ${b.kind}, ${b.digest}, ${b.definition}, ${JSON.stringify(b.params)}, ${JSON.stringify(b.env)}, ${b.source}, ${b.approvedAt}, ${b.approvedAt})
              ON CONFLICT (alias) DO NOTHING RETURNING alias`
          ).pipe(Effect.map((rows) => rows.length === 1), Effect.mapError(fail))
        ),
      list: Effect.flatMap(db, (sql) => sql<BindingRow>`SELECT * FROM bindings ORDER BY alias`.pipe(Effect.map((rows) => rows.map(toBinding)), Effect.mapError(fail))),
      get: (alias) =>
        Effect.flatMap(db, (sql) => sql<BindingRow>`SELECT * FROM bindings WHERE alias = ${alias}`.pipe(Effect.map((rows) => (rows[0] === undefined ? undefined : toBinding(rows[0]))), Effect.mapError(fail))),
      forExport: (ref) =>
        Effect.flatMap(db, (sql) => sql<BindingRow>`SELECT * FROM bindings WHERE export_ref = ${ref} ORDER BY created_at, alias`.pipe(Effect.map((rows) => rows.map(toBinding)), Effect.mapError(fail))),
      remove: (alias) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(sql, sql<{ alias: string }>`DELETE FROM bindings WHERE alias = ${alias} RETURNING alias`).pipe(Effect.map((rows) => rows.length === 1), Effect.mapError(fail))
        ),
      approve: (alias, a) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            sql<{ alias: string }>`UPDATE bindings SET digest = ${a.digest}, definition = ${a.definition}, approved_at = ${a.approvedAt} WHERE alias = ${alias} RETURNING alias`
          ).pipe(Effect.map((rows) => rows.length === 1), Effect.mapError(fail))
        ),
      renameBundle: (from, to) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            // SQLite measures the name itself: substr counts characters, JS .length counts UTF-16 units.
            sql`UPDATE bindings SET export_ref = ${to} || substr(export_ref, length(${from}) + 1) WHERE substr(export_ref, 1, length(${from}) + 2) = ${`${from}//`}`
          ).pipe(Effect.asVoid, Effect.mapError(fail))
        )
    })
  })

/** Needs StateDb (StateDbLive in AkmLive). */
export const BindingsSqlite = Layer.effect(Bindings, Effect.flatMap(StateDb, bindingsFrom))

/** Bindings in an in-memory state.db, for tests. */
export const BindingsMemory = Layer.scoped(Bindings, Effect.flatMap(makeStateDb(":memory:"), bindingsFrom))
