import { SqlError } from "@effect/sql/SqlError"
import { createHash } from "node:crypto"
import { Effect, Schema } from "effect"
import { IndexDocument } from "../../../domain/IndexDocument.js"
import type { ItemInputs } from "../../../domain/ItemProjection.js"
import { IndexStore, type BundleManifest, type DocumentSink, type IndexedItem, type IndexStoreError, type PersistEnd, type PersistStreamed } from "../../../services/IndexStore.js"
import { mapSqlError, sqlFailure, type SqlDriver, type SqlReader } from "../driver.js"
import { databaseStatusOn } from "../status.js"
import { BUNDLE_COLUMNS, countsOf, listBundles, type BundleRow } from "./bundles.js"
import { countItems, deleteDocuments, insertRows, persistBundle, persistSession, moveWalkCounts, storedManifest, walkCountsOf, writeManifest } from "./persist.js"
import { browse, candidates, excerpts, itemsByRef, lastIndexed } from "./query.js"
import { literal, sql } from "./sqlText.js"
import { typeSizes } from "./typeSizes.js"
import { bundleStamp, readItemInputs } from "./itemInputs.js"

const decodeDoc = Schema.decodeUnknownSync(Schema.parseJson(IndexDocument))

/** What an IndexStore over index.db is made of: its connections (by driver) and its write lease. */
export interface IndexStoreParts {
  readonly filename: string
  /** The connection that writes, and reads what search does not: opened (and migrated) on first use. */
  readonly writer: Effect.Effect<SqlDriver, IndexStoreError>
  /**
   * What search reads through (candidates, browse, items, bundles,
   * lastIndexed, typeSizes): a connection of its own on a file, so it sees
   * committed writes only, never those of a transaction still open on the writer.
   */
  readonly reader: Effect.Effect<SqlReader, IndexStoreError>
  readonly withWriteLease: IndexStore["Type"]["withWriteLease"]
  /**
   * Whether each configured bundle is writable now (config.yaml, read per
   * search): a hit's `editable` follows `akm config set bundles.X.writable` at
   * once. Without it, or for a bundle it does not name, the index's value
   * (the bundle's writability when it was indexed) stands.
   */
  readonly writable?: Effect.Effect<ReadonlyMap<string, boolean>> | undefined
}

/** A streamed persist whose producer discarded: rolls the transaction back, then becomes its value. */
class Discarded {
  constructor(readonly value: unknown) {}
}

const renameRows = (db: SqlDriver, from: string, to: string) =>
  Effect.gen(function* () {
    const rows = yield* db.rows<{ id: number; doc: string }>(sql`SELECT d.id, j.doc FROM documents d JOIN document_json j ON j.id = d.id WHERE d.bundle = ${from}`)
    for (const row of rows) {
      const doc = decodeDoc(row.doc)
      const json = JSON.stringify({ ...doc, bundle: to, ref: `${to}//${doc.conceptId}` })
      const digest = createHash("sha1").update(json).digest("base64")
      yield* db.run(sql`UPDATE documents SET bundle = ${to}, ref = ${`${to}//${doc.conceptId}`}, digest = ${digest}, inputs_digest = NULL WHERE id = ${row.id}`)
      // Stored inputs name the old refs (findings, lint projections): the next scan projects these items again.
      yield* db.run(sql`UPDATE document_json SET doc = ${json}, inputs = NULL WHERE id = ${row.id}`)
    }
    const prefix = `${from}//`
    const rekey = (table: string, column: string) =>
      db.run(sql`UPDATE ${literal(table)} SET ${literal(column)} = ${`${to}//`} || substr(${literal(column)}, ${prefix.length + 1})
        WHERE substr(${literal(column)}, 1, ${prefix.length}) = ${prefix}`)
    yield* rekey("documents", "superseded_by")
    yield* rekey("ranking_features", "ref")
    yield* db.run(sql`UPDATE manifest SET bundle = ${to} WHERE bundle = ${from}`)
    yield* db.run(sql`UPDATE bundles SET name = ${to} WHERE name = ${from}`)
    yield* moveWalkCounts(db, from, to)
  })

/**
 * IndexStore over index.db, whichever driver its connections use: the full
 * CLI's layer (IndexStoreSqlite.ts) and the search fast path's
 * (IndexStoreConnection.ts) are both this. Writes are batched into
 * multi-row statements, one BEGIN IMMEDIATE transaction per bundle.
 */
export const indexStoreOn = (parts: IndexStoreParts): IndexStore["Type"] => {
  const fail = sqlFailure(parts.filename)
  /** The last bundle's parsed item inputs, by bundle and the index run that wrote them (itemInputs); dropped by every write of rows. */
  let inputsCache: { readonly key: string; readonly inputs: ReadonlyMap<string, ItemInputs> } | undefined
  /** The last bundle's manifest files, kept by the same rule: a write reads them in validation and in its refresh (decision 0032). */
  let filesCache: { readonly key: string; readonly files: BundleManifest["files"] } | undefined
  const forgetInputs = Effect.sync(() => {
    inputsCache = undefined
    filesCache = undefined
  })
  /** Statements on the writer; a SqlError becomes the store's error, any other failure stays. */
  const read = <A, E, R>(f: (db: SqlDriver) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(parts.writer, (db) => Effect.mapError(f(db), mapSqlError<E, IndexStoreError>(fail)))
  const write = <A, E, R>(f: (db: SqlDriver) => Effect.Effect<A, E, R>) => read((db) => db.immediate(f))
  const search = <A>(f: (db: SqlReader) => Effect.Effect<A, SqlError>) => Effect.flatMap(parts.reader, (db) => Effect.mapError(f(db), fail))
  /** Items with `editable` as configured now (parts.writable). */
  const current = <A>(found: Effect.Effect<A, IndexStoreError>, items: (a: A, edit: (item: IndexedItem) => IndexedItem) => A) =>
    parts.writable === undefined
      ? found
      : Effect.flatMap(found, (a) =>
        Effect.map(parts.writable!, (writable) =>
          writable.size === 0 ? a : items(a, (item) => {
            const now = writable.get(item.bundle)
            return now === undefined || now === item.editable ? item : { ...item, editable: now }
          })))

  /**
   * The bundle's manifest files as read for this run (manifest), when its
   * rows are still those of that index run inside this transaction: every
   * write of manifest rows stamps a new indexed_at, and removing or renaming
   * a bundle forgets the cache.
   */
  const knownFiles = (db: SqlDriver, bundle: string) =>
    Effect.map(db.rows<{ indexedAt: string | null }>(sql`SELECT indexed_at AS indexedAt FROM bundles WHERE name = ${bundle}`), (rows) => {
      const indexedAt = rows[0]?.indexedAt
      return indexedAt === null || indexedAt === undefined || filesCache?.key !== JSON.stringify([bundle, indexedAt]) ? undefined : filesCache.files
    })

  /** IndexStore.persistStreamed: the producer runs inside the bundle's BEGIN IMMEDIATE transaction (a plain read when dry-run). */
  const persistStreamed = <A, E, R>(
    bundle: string,
    produce: (sink: DocumentSink) => Effect.Effect<PersistEnd<A>, E, R>,
    options?: { readonly dryRun?: boolean | undefined }
  ): Effect.Effect<PersistStreamed<A>, E | IndexStoreError, R> => {
    const dryRun = options?.dryRun === true
    const body = (db: SqlDriver) =>
      Effect.gen(function* () {
        const session = yield* persistSession(db, bundle, dryRun)
        const end = yield* produce({ write: (docs, inputs) => Effect.mapError(session.write(docs, inputs), fail), keep: session.keep })
        if (end._tag === "Discard") return yield* Effect.fail(new Discarded(end.value))
        const summary = yield* session.finish
        if (!dryRun) yield* writeManifest(db, bundle, end.manifest, yield* knownFiles(db, bundle))
        return { summary, value: end.value } satisfies PersistStreamed<A>
      })
    return Effect.flatMap(parts.writer, (db) =>
      Effect.mapError(dryRun ? body(db) : Effect.ensuring(db.immediate(body), forgetInputs), (error) => (error instanceof SqlError ? fail(error) : error))
    ).pipe(
      Effect.catchIf((error): error is Discarded => error instanceof Discarded, (discarded) => Effect.succeed<PersistStreamed<A>>({ summary: undefined, value: discarded.value as A }))
    ) as Effect.Effect<PersistStreamed<A>, E | IndexStoreError, R>
  }

  return IndexStore.of({
    init: read((db) => databaseStatusOn(db, parts.filename)),
    persist: (bundle, docs, manifest) =>
      Effect.ensuring(write((db) =>
        Effect.gen(function* () {
          const summary = yield* persistBundle(db, bundle, docs, false)
          yield* writeManifest(db, bundle, manifest)
          return summary
        })
      ), forgetInputs),
    diff: (bundle, docs) => read((db) => persistBundle(db, bundle, docs, true)),
    persistStreamed,
    manifest: (bundle) =>
      read((db) =>
        Effect.gen(function* () {
          const rows = yield* db.rows<BundleRow>(sql`SELECT ${literal(BUNDLE_COLUMNS)} FROM bundles WHERE name = ${bundle}`)
          const row = rows[0]
          if (row === undefined || row.adapter === null || row.version === null || row.indexedAt === null) return undefined
          const key = JSON.stringify([bundle, row.indexedAt])
          let files = filesCache?.key === key ? filesCache.files : undefined
          if (files === undefined) {
            files = yield* storedManifest(db, bundle)
            filesCache = { key, files }
          }
          const diagnostics = countsOf(row)
          const walkDiagnostics = yield* walkCountsOf(db, bundle, row.indexedAt)
          return {
            bundle,
            adapter: { id: row.adapter, version: row.version },
            indexedAt: row.indexedAt,
            files,
            ...(row.root === null ? {} : { root: row.root }),
            ...(row.writable === null ? {} : { writable: row.writable === 1 }),
            ...(diagnostics === undefined ? {} : { diagnostics }),
            ...(walkDiagnostics === undefined ? {} : { walkDiagnostics }),
            ...(row.staleReason === null ? {} : { staleReason: row.staleReason })
          } satisfies BundleManifest
        })
      ),
    itemInputs: (bundle) =>
      read((db) =>
        Effect.gen(function* () {
          // Kept while the bundle's rows are those of the same index run: a write validates (twice) and then refreshes
          // the index in one process, and each step would otherwise read and parse every item's inputs again.
          const stamp = yield* bundleStamp(db, bundle)
          const key = stamp === undefined ? undefined : JSON.stringify([bundle, stamp])
          if (key !== undefined && inputsCache?.key === key) return inputsCache.inputs
          // Read and parsed in slices: 5,000 items' inputs took 10–20 ms of JSON.parse and as long again of SQLite in one piece (decisions 0048, 0057).
          const inputs = yield* readItemInputs(db, bundle, stamp)
          inputsCache = key === undefined ? undefined : { key, inputs }
          return inputs
        })
      ),
    markStale: (bundle, reason) => write((db) => Effect.zipRight(countItems(db, bundle), db.run(sql`UPDATE bundles SET stale_reason = ${reason} WHERE name = ${bundle}`))),
    bundles: search(listBundles),
    lastIndexed: search(lastIndexed),
    recordIndexRun: (at) => read((db) => db.run(sql`INSERT INTO meta (key, value) VALUES ('indexed_at', ${at}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`)),
    resolve: (ref) =>
      read((db) =>
        Effect.map(db.rows<{ doc: string }>(sql`SELECT j.doc FROM documents d JOIN document_json j ON j.id = d.id WHERE d.ref = ${ref}`), (rows) =>
          rows[0] === undefined ? undefined : decodeDoc(rows[0].doc))
      ),
    has: (bundle, conceptId) =>
      read((db) => Effect.map(db.rows<{ n: number }>(sql`SELECT count(*) AS n FROM documents WHERE ref = ${`${bundle}//${conceptId}`}`), (rows) => (rows[0]?.n ?? 0) > 0)),
    candidates: (query) => current(search((db) => candidates(db, query)), (set, edit) => ({ ...set, candidates: set.candidates.map((c) => ({ ...c, item: edit(c.item) })) })),
    items: (refs, filters) => current(search((db) => itemsByRef(db, refs, filters)), (items, edit) => items.map(edit)),
    excerpts: (refs, chars) => search((db) => excerpts(db, refs, chars)),
    browse: (query) => current(search((db) => browse(db, query)), (page, edit) => ({ ...page, items: page.items.map(edit) })),
    counts: read((db) =>
      Effect.map(db.rows<{ name: string; items: number }>(literal("SELECT name, items FROM bundles WHERE items > 0 ORDER BY name")), (rows) =>
        Object.fromEntries(rows.map((row) => [row.name, row.items]))
      )
    ),
    typeSizes: (type) => search((db) => typeSizes(db, type)),
    removeBundle: (bundle) =>
      Effect.ensuring(write((db) =>
        Effect.gen(function* () {
          const rows = yield* db.rows<{ id: number }>(sql`SELECT id FROM documents WHERE bundle = ${bundle}`)
          yield* deleteDocuments(db, rows.map((row) => row.id))
          yield* db.run(sql`DELETE FROM manifest WHERE bundle = ${bundle}`)
          yield* db.run(sql`DELETE FROM bundles WHERE name = ${bundle}`)
          yield* moveWalkCounts(db, bundle)
          return rows.length
        })
      ), forgetInputs),
    renameBundle: (from, to) => Effect.ensuring(write((db) => renameRows(db, from, to)), forgetInputs),
    cachedTokens: (hash) => read((db) => Effect.map(db.rows<{ tokens: number }>(sql`SELECT tokens FROM token_counts WHERE hash = ${hash}`), (rows) => rows[0]?.tokens)),
    storeTokens: (hash, tokens) =>
      read((db) => db.run(sql`INSERT INTO token_counts (hash, tokens) VALUES (${hash}, ${tokens}) ON CONFLICT (hash) DO UPDATE SET tokens = excluded.tokens`)),
    replaceUtilities: (utilities) =>
      write((db) =>
        Effect.zipRight(
          db.run(literal("DELETE FROM ranking_features")),
          insertRows(db, "ranking_features", ["ref", "utility", "updated_at"], [...utilities].map(([ref, { value, at }]) => [ref, value, at]))
        )
      ),
    updateUtility: (ref, utility, at) =>
      read((db) =>
        db.run(sql`INSERT INTO ranking_features (ref, utility, updated_at) VALUES (${ref}, ${utility}, ${at})
          ON CONFLICT (ref) DO UPDATE SET utility = excluded.utility, updated_at = excluded.updated_at`)
      ),
    retireOverlay: (entries) =>
      entries.length === 0
        ? Effect.succeed(0)
        : write((db) =>
          Effect.map(
            Effect.forEach(entries, (e) => db.rows<{ id: number }>(sql`UPDATE documents SET belief_state = 'retired' WHERE ref = ${e.ref} AND hash = ${e.hash} RETURNING id`)),
            (rows) => rows.flat().length
          )
        ),
    withWriteLease: parts.withWriteLease
  })
}
