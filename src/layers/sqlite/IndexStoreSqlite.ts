import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Schema } from "effect"
import { IndexDocument, type PersistSummary } from "../../domain/IndexDocument.js"
import { IndexStore } from "../../services/IndexStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { immediateTransaction } from "./Database.js"
import { lazyDatabase, sqlFailure } from "./LazyDatabase.js"
import { indexMigrations } from "./migrations.js"
import { databaseStatus } from "./status.js"

interface DocumentRow {
  readonly id: number
  readonly ref: string
  readonly hash: string
  readonly doc: string
}

const decodeDoc = Schema.decodeUnknownSync(Schema.parseJson(IndexDocument))

/** Quotes every token: FTS5 treats `c++` or `what's` as syntax otherwise (spec 00 §4.2). */
const ftsQuery = (text: string): string =>
  text
    .normalize("NFC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((t) => t.length > 0)
    .map((t) => `"${t.replaceAll('"', '""')}"`)
    .join(" OR ")

const ftsRow = (doc: IndexDocument) => ({
  name: doc.name,
  description: doc.description ?? "",
  tags: (doc.tags ?? []).join(" "),
  hints: (doc.hints ?? []).join(" "),
  content: doc.content ?? ""
})

const upsert = (sql: SqlClient.SqlClient, doc: IndexDocument, existing: DocumentRow | undefined) =>
  Effect.gen(function* () {
    const json = JSON.stringify(doc)
    if (existing === undefined) {
      const rows = yield* sql<{ id: number }>`INSERT INTO documents (ref, bundle, concept_id, adapter, path, hash, type, name, description, doc)
        VALUES (${doc.ref}, ${doc.bundle}, ${doc.conceptId}, ${doc.adapter}, ${doc.path}, ${doc.hash}, ${doc.type ?? null}, ${doc.name}, ${doc.description ?? null}, ${json}) RETURNING id`
      const f = ftsRow(doc)
      yield* sql`INSERT INTO documents_fts (rowid, name, description, tags, hints, content) VALUES (${rows[0]!.id}, ${f.name}, ${f.description}, ${f.tags}, ${f.hints}, ${f.content})`
      return "added" as const
    }
    if (existing.doc === json) return "unchanged" as const
    yield* sql`UPDATE documents SET concept_id = ${doc.conceptId}, adapter = ${doc.adapter}, path = ${doc.path}, hash = ${doc.hash}, type = ${doc.type ?? null},
      name = ${doc.name}, description = ${doc.description ?? null}, doc = ${json} WHERE id = ${existing.id}`
    const f = ftsRow(doc)
    yield* sql`DELETE FROM documents_fts WHERE rowid = ${existing.id}`
    yield* sql`INSERT INTO documents_fts (rowid, name, description, tags, hints, content) VALUES (${existing.id}, ${f.name}, ${f.description}, ${f.tags}, ${f.hints}, ${f.content})`
    return "updated" as const
  })

const deleteRows = (sql: SqlClient.SqlClient, ids: ReadonlyArray<number>) =>
  Effect.forEach(ids, (id) => Effect.zipRight(sql`DELETE FROM documents_fts WHERE rowid = ${id}`, sql`DELETE FROM documents WHERE id = ${id}`), { discard: true })

export const makeIndexStore = (filename: string) =>
  Effect.gen(function* () {
    const db = yield* lazyDatabase({ filename, migrations: indexMigrations })
    const fail = sqlFailure(filename)

    return IndexStore.of({
      init: Effect.flatMap(db, (sql) => databaseStatus(sql, filename).pipe(Effect.mapError(fail))),
      persist: (bundle, docs) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            Effect.gen(function* () {
              const existing = yield* sql<DocumentRow>`SELECT id, ref, hash, doc FROM documents WHERE bundle = ${bundle}`
              const byRef = new Map(existing.map((row) => [row.ref, row]))
              const summary = { bundle, added: 0, updated: 0, removed: 0, unchanged: 0 }
              const seen = new Set<string>()
              for (const doc of docs) {
                seen.add(doc.ref)
                const outcome = yield* upsert(sql, doc, byRef.get(doc.ref))
                summary[outcome]++
              }
              const vanished = existing.filter((row) => !seen.has(row.ref)).map((row) => row.id)
              yield* deleteRows(sql, vanished)
              summary.removed = vanished.length
              return summary satisfies PersistSummary
            })
          ).pipe(Effect.mapError(fail))
        ),
      resolve: (ref) =>
        Effect.flatMap(db, (sql) =>
          sql<{ doc: string }>`SELECT doc FROM documents WHERE ref = ${ref}`.pipe(
            Effect.map((rows) => (rows[0] === undefined ? undefined : decodeDoc(rows[0].doc))),
            Effect.mapError(fail)
          )
        ),
      has: (bundle, conceptId) =>
        Effect.flatMap(db, (sql) =>
          sql<{ n: number }>`SELECT count(*) AS n FROM documents WHERE ref = ${`${bundle}//${conceptId}`}`.pipe(
            Effect.map((rows) => (rows[0]?.n ?? 0) > 0),
            Effect.mapError(fail)
          )
        ),
      search: (query) =>
        Effect.flatMap(db, (sql) => {
          const match = ftsQuery(query.text)
          if (match === "") return Effect.succeed([])
          const bundles = query.bundles ?? []
          return sql<{ ref: string; name: string; description: string | null; type: string | null; score: number }>`
            WITH hits AS (
              SELECT rowid AS id, bm25(documents_fts, 10.0, 5.0, 3.0, 2.0, 1.0) AS score
              FROM documents_fts WHERE documents_fts MATCH ${match}
            )
            SELECT d.ref, d.name, d.description, d.type, h.score FROM hits h JOIN documents d ON d.id = h.id
            ${bundles.length === 0 ? sql`` : sql`WHERE d.bundle IN ${sql.in(bundles)}`}
            ORDER BY h.score, d.ref LIMIT ${query.limit}`.pipe(
            Effect.map((rows) =>
              rows.map((row) => ({ ref: row.ref, name: row.name, description: row.description ?? undefined, type: row.type ?? undefined, score: -row.score }))
            ),
            Effect.mapError(fail)
          )
        }),
      counts: Effect.flatMap(db, (sql) =>
        sql<{ bundle: string; n: number }>`SELECT bundle, count(*) AS n FROM documents GROUP BY bundle ORDER BY bundle`.pipe(
          Effect.map((rows) => Object.fromEntries(rows.map((row) => [row.bundle, row.n]))),
          Effect.mapError(fail)
        )
      ),
      removeBundle: (bundle) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            Effect.gen(function* () {
              const rows = yield* sql<{ id: number }>`SELECT id FROM documents WHERE bundle = ${bundle}`
              yield* deleteRows(sql, rows.map((row) => row.id))
              return rows.length
            })
          ).pipe(Effect.mapError(fail))
        ),
      renameBundle: (from, to) =>
        Effect.flatMap(db, (sql) =>
          immediateTransaction(
            sql,
            Effect.gen(function* () {
              const rows = yield* sql<DocumentRow>`SELECT id, ref, hash, doc FROM documents WHERE bundle = ${from}`
              for (const row of rows) {
                const doc = decodeDoc(row.doc)
                const next = { ...doc, bundle: to, ref: `${to}//${doc.conceptId}` }
                yield* sql`UPDATE documents SET bundle = ${to}, ref = ${next.ref}, doc = ${JSON.stringify(next)} WHERE id = ${row.id}`
              }
            })
          ).pipe(Effect.mapError(fail))
        )
    })
  })

export const IndexStoreSqlite = Layer.scoped(
  IndexStore,
  Effect.flatMap(WorkspaceConfig, (workspace) => makeIndexStore(workspace.paths.indexDb))
)
