import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { Effect, Layer, Schema } from "effect"
import { IndexDocument } from "../../domain/IndexDocument.js"
import type { ItemInputs } from "../../domain/ItemProjection.js"
import {
  IndexStore,
  type BundleManifest,
  type DocumentSink,
  type PersistEnd,
  type PersistStreamed
} from "../../services/IndexStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { withFileMutex } from "../fs/FileMutex.js"
import { immediateTransaction } from "./Database.js"
import { BUNDLE_COLUMNS, countsOf, listBundles, type BundleRow } from "./index/bundles.js"
import { countItems, deleteDocuments, persistBundle, persistSession, writeManifest } from "./index/persist.js"
import { browse, candidates, itemsByRef, lastIndexed } from "./index/query.js"
import { searchRunner } from "./index/reader.js"
import { batches } from "./index/rows.js"
import { typeSizes } from "./index/typeSizes.js"
import { lazyDisposableDatabase, sqlFailure } from "./LazyDatabase.js"
import { indexMigrations } from "./migrations.js"
import { databaseStatus } from "./status.js"

const decodeDoc = Schema.decodeUnknownSync(Schema.parseJson(IndexDocument))

export interface IndexStoreOptions {
  /** The workspace index lease (R-IDX-6), `$DATA/locks/index.lock`; without it only this process is serialised. */
  readonly leaseFile?: string | undefined
}

const renameRows = (sql: SqlClient.SqlClient, from: string, to: string) =>
  Effect.gen(function* () {
    const rows = yield* sql<{ id: number; doc: string }>`SELECT d.id, j.doc FROM documents d JOIN document_json j ON j.id = d.id WHERE d.bundle = ${from}`
    for (const row of rows) {
      const doc = decodeDoc(row.doc)
      const json = JSON.stringify({ ...doc, bundle: to, ref: `${to}//${doc.conceptId}` })
      const digest = createHash("sha1").update(json).digest("base64")
      yield* sql`UPDATE documents SET bundle = ${to}, ref = ${`${to}//${doc.conceptId}`}, digest = ${digest}, inputs_digest = NULL WHERE id = ${row.id}`
      // Stored inputs name the old refs (findings, lint projections): the next scan projects these items again.
      yield* sql`UPDATE document_json SET doc = ${json}, inputs = NULL WHERE id = ${row.id}`
    }
    const prefix = `${from}//`
    const rekey = (table: string, column: string) =>
      sql`UPDATE ${sql(table)} SET ${sql(column)} = ${`${to}//`} || substr(${sql(column)}, ${prefix.length + 1})
        WHERE substr(${sql(column)}, 1, ${prefix.length}) = ${prefix}`
    yield* rekey("documents", "superseded_by")
    yield* rekey("ranking_features", "ref")
    yield* sql`UPDATE manifest SET bundle = ${to} WHERE bundle = ${from}`
    yield* sql`UPDATE bundles SET name = ${to} WHERE name = ${from}`
  })

/** A streamed persist whose producer discarded: rolls the transaction back, then becomes its value. */
class Discarded {
  constructor(readonly value: unknown) {}
}

/** index.db through @effect/sql: writes batched into multi-row statements, one BEGIN IMMEDIATE transaction per bundle. */
export const makeIndexStore = (filename: string, options: IndexStoreOptions = {}) =>
  Effect.gen(function* () {
    const db = yield* lazyDisposableDatabase({ filename, migrations: indexMigrations })
    const fail = sqlFailure(filename)
    const lease = yield* Effect.makeSemaphore(1)
    // What a search reads (candidates, browse, items, bundles, lastIndexed) goes through a plain connection of its
    // own (index/reader.ts): it sees committed writes only, never those of a transaction still open on `db`.
    const search = yield* searchRunner(filename, db, fail)
    const read = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>) => Effect.flatMap(db, (sql) => f(sql).pipe(Effect.mapError(fail)))
    const write = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, SqlError>) =>
      Effect.flatMap(db, (sql) => immediateTransaction(sql, f(sql)).pipe(Effect.mapError(fail)))

    /** IndexStore.persistStreamed: the producer runs inside the bundle's BEGIN IMMEDIATE transaction (a plain read when dry-run). */
    const persistStreamed = <A, E, R>(
      bundle: string,
      produce: (sink: DocumentSink) => Effect.Effect<PersistEnd<A>, E, R>,
      options?: { readonly dryRun?: boolean | undefined }
    ) => {
      const dryRun = options?.dryRun === true
      const body = (sql: SqlClient.SqlClient) =>
        Effect.gen(function* () {
          const session = yield* Effect.mapError(persistSession(sql, bundle, dryRun), fail)
          const end = yield* produce({ write: (docs, inputs) => Effect.mapError(session.write(docs, inputs), fail), keep: session.keep })
          if (end._tag === "Discard") return yield* Effect.fail(new Discarded(end.value))
          const summary = yield* Effect.mapError(session.finish, fail)
          if (!dryRun) yield* Effect.mapError(writeManifest(sql, bundle, end.manifest), fail)
          return { summary, value: end.value } satisfies PersistStreamed<A>
        })
      return Effect.flatMap(db, (sql) =>
        dryRun ? body(sql) : Effect.mapError(immediateTransaction(sql, body(sql)), (error) => (error instanceof SqlError ? fail(error) : error))
      ).pipe(
        Effect.catchIf((error): error is Discarded => error instanceof Discarded, (discarded) => Effect.succeed<PersistStreamed<A>>({ summary: undefined, value: discarded.value as A }))
      )
    }

    return IndexStore.of({
      init: read((sql) => databaseStatus(sql, filename)),
      persist: (bundle, docs, manifest) =>
        write((sql) =>
          Effect.gen(function* () {
            const summary = yield* persistBundle(sql, bundle, docs, false)
            yield* writeManifest(sql, bundle, manifest)
            return summary
          })
        ),
      diff: (bundle, docs) => read((sql) => persistBundle(sql, bundle, docs, true)),
      persistStreamed,
      manifest: (bundle) =>
        read((sql) =>
          Effect.gen(function* () {
            const rows = yield* sql<BundleRow>`SELECT ${sql.literal(BUNDLE_COLUMNS)} FROM bundles WHERE name = ${bundle}`
            const row = rows[0]
            if (row === undefined || row.adapter === null || row.version === null || row.indexedAt === null) return undefined
            const files = yield* sql<{ path: string; size: number; mtimeMs: number; hash: string | null }>`
              SELECT path, size, mtime_ms AS mtimeMs, hash FROM manifest WHERE bundle = ${bundle} ORDER BY path`
            const diagnostics = countsOf(row)
            return {
              bundle,
              adapter: { id: row.adapter, version: row.version },
              indexedAt: row.indexedAt,
              files: files.map((f) => ({ path: f.path, size: f.size, mtimeMs: f.mtimeMs, ...(f.hash === null ? {} : { hash: f.hash }) })),
              ...(row.root === null ? {} : { root: row.root }),
              ...(row.writable === null ? {} : { writable: row.writable === 1 }),
              ...(diagnostics === undefined ? {} : { diagnostics }),
              ...(row.staleReason === null ? {} : { staleReason: row.staleReason })
            } satisfies BundleManifest
          })
        ),
      itemInputs: (bundle) =>
        read((sql) =>
          Effect.map(
            sql<{ ref: string; inputs: string }>`SELECT d.ref, j.inputs FROM documents d JOIN document_json j ON j.id = d.id WHERE d.bundle = ${bundle} AND j.inputs IS NOT NULL`,
            (rows) => new Map(rows.map((row) => [row.ref, JSON.parse(row.inputs) as ItemInputs] as const))
          )
        ),
      markStale: (bundle, reason) =>
        write((sql) => Effect.zipRight(countItems(sql, bundle), sql`UPDATE bundles SET stale_reason = ${reason} WHERE name = ${bundle}`)),
      bundles: search(listBundles),
      lastIndexed: search(lastIndexed),
      recordIndexRun: (at) => read((sql) => sql`INSERT INTO meta (key, value) VALUES ('indexed_at', ${at}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`.pipe(Effect.asVoid)),
      resolve: (ref) =>
        read((sql) => Effect.map(sql<{ doc: string }>`SELECT j.doc FROM documents d JOIN document_json j ON j.id = d.id WHERE d.ref = ${ref}`, (rows) => (rows[0] === undefined ? undefined : decodeDoc(rows[0].doc)))),
      has: (bundle, conceptId) =>
        read((sql) => Effect.map(sql<{ n: number }>`SELECT count(*) AS n FROM documents WHERE ref = ${`${bundle}//${conceptId}`}`, (rows) => (rows[0]?.n ?? 0) > 0)),
      candidates: (query) => search((db) => candidates(db, query)),
      items: (refs, filters) => search((db) => itemsByRef(db, refs, filters)),
      browse: (query) => search((db) => browse(db, query)),
      counts: read((sql) =>
        Effect.map(sql<{ name: string; items: number }>`SELECT name, items FROM bundles WHERE items > 0 ORDER BY name`, (rows) =>
          Object.fromEntries(rows.map((row) => [row.name, row.items]))
        )
      ),
      typeSizes: (type) => search((db) => typeSizes(db, type)),
      removeBundle: (bundle) =>
        write((sql) =>
          Effect.gen(function* () {
            const rows = yield* sql<{ id: number }>`SELECT id FROM documents WHERE bundle = ${bundle}`
            yield* deleteDocuments(sql, rows.map((row) => row.id))
            yield* sql`DELETE FROM manifest WHERE bundle = ${bundle}`
            yield* sql`DELETE FROM bundles WHERE name = ${bundle}`
            return rows.length
          })
        ),
      renameBundle: (from, to) => write((sql) => renameRows(sql, from, to)),
      cachedTokens: (hash) => read((sql) => Effect.map(sql<{ tokens: number }>`SELECT tokens FROM token_counts WHERE hash = ${hash}`, (rows) => rows[0]?.tokens)),
      storeTokens: (hash, tokens) =>
        read((sql) => sql`INSERT INTO token_counts (hash, tokens) VALUES (${hash}, ${tokens}) ON CONFLICT (hash) DO UPDATE SET tokens = excluded.tokens`.pipe(Effect.asVoid)),
      replaceUtilities: (utilities) =>
        write((sql) =>
          Effect.gen(function* () {
            yield* sql`DELETE FROM ranking_features`
            const rows = [...utilities].map(([ref, { value, at }]) => ({ ref, utility: value, updated_at: at }))
            for (const batch of batches(rows, 3)) yield* sql`INSERT INTO ranking_features ${sql.insert(batch)}`
          })
        ),
      updateUtility: (ref, utility, at) =>
        read((sql) =>
          sql`INSERT INTO ranking_features (ref, utility, updated_at) VALUES (${ref}, ${utility}, ${at})
            ON CONFLICT (ref) DO UPDATE SET utility = excluded.utility, updated_at = excluded.updated_at`.pipe(Effect.asVoid)
        ),
      withWriteLease: (effect) => lease.withPermits(1)(options.leaseFile === undefined ? effect : withFileMutex(options.leaseFile)(effect))
    })
  })

/** The workspace's index.db, with the index lease under `$DATA/locks`. */
export const IndexStoreSqlite = Layer.scoped(
  IndexStore,
  Effect.flatMap(WorkspaceConfig, (workspace) => makeIndexStore(workspace.paths.indexDb, { leaseFile: path.join(workspace.paths.locksDir, "index.lock") }))
)
