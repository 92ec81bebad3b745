import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { createHash } from "node:crypto"
import { Context, Effect, Option, Schema } from "effect"
import { WorkspaceUnavailable } from "../../../domain/Errors.js"
import { IndexDocument } from "../../../domain/IndexDocument.js"
import type { ItemInputs } from "../../../domain/ItemProjection.js"
import { IndexStore, type BundleIndexState, type BundleManifest, type DocumentSink, type IndexedItem, type IndexStoreError, type PersistEnd, type PersistStreamed } from "../../../services/IndexStore.js"
import { bundleState, type BundleRow } from "../../sqlite/index/bundles.js"
import { migrateHistory } from "../migrationHistory.js"
import { INDEX_MIGRATIONS_TABLE, indexMigrationsPg } from "./migrations.js"
import { absoluteFrom } from "./paths.js"
import { countItems, deleteDocuments, persistBundle, persistSession, writeManifest } from "./persist.js"
import { bumpGeneration, refreshPostings } from "./postings.js"
import { browse, candidates, excerpts, itemsByRef, makeSearchCache } from "./query.js"

const decodeDoc = Schema.decodeUnknownSync(Schema.parseJson(IndexDocument))

/** One index per database: index runs of every akm server on it serialise on this advisory lock (R-IDX-6). */
const INDEX_LOCK = "hashtext('akm/index')"
/** What to do when the index's migration failed (rolled back, tried again by the next command). */
const MIGRATION_FAILED = "do what the message asks, or check the server's log (`akm health` checks the server); the migration was rolled back and runs again on the next command"
/** Migrations of two servers starting at once serialise on this one. */
const MIGRATION_LOCK = "akm/index-migrations"

const BUNDLE_COLUMNS = `name, items, adapter, adapter_version AS version, indexed_at AS "indexedAt", writable, errors, warnings, infos,
  stale_reason AS "staleReason", root`

/**
 * This store's open transaction. @effect/sql keeps a transaction's connection
 * under one tag for every client (SqlClient.TransactionConnection): left
 * there, an index run's transaction would take the state stores' statements
 * too (on another database, or SQLite). So the store keeps its own here, puts
 * it under that tag for its own statements only, and gives the caller's code
 * (the index run, a persist's producer) the caller's transaction back.
 */
type Tx = readonly [conn: Connection, depth: number]
const IndexTx = Context.GenericTag<"akm/IndexStorePg/Transaction", Tx>("akm/IndexStorePg/Transaction")

/** A context for this store's statements: its own transaction, or none (never another client's). */
const own = (ctx: Context.Context<never>): Context.Context<never> => {
  const tx = Context.getOption(ctx, IndexTx)
  return Option.isSome(tx) ? Context.add(ctx, SqlClient.TransactionConnection, tx.value) : Context.omit(SqlClient.TransactionConnection)(ctx) as Context.Context<never>
}

/** The caller's context as it was (`outer` its transaction), with this store's transaction kept for the store's calls inside. */
const callers = (ctx: Context.Context<never>, outer: Option.Option<Tx>, tx: Option.Option<Tx>): Context.Context<never> => {
  const restored = Option.isSome(outer) ? Context.add(ctx, SqlClient.TransactionConnection, outer.value) : Context.omit(SqlClient.TransactionConnection)(ctx) as Context.Context<never>
  return Option.isSome(tx) ? Context.add(restored, IndexTx, tx.value) : Context.omit(IndexTx)(restored) as Context.Context<never>
}

/** A streamed persist whose producer discarded: rolls the transaction back, then becomes its value. */
class Discarded {
  constructor(readonly value: unknown) {}
}

export interface IndexStorePgOptions {
  /** Where the index lives, as errors and `akm info` name it (never the URL: it may hold a password). */
  readonly label?: string | undefined
  /** Configured writability by bundle, read per search (as sqlite/index/store.ts). */
  readonly writable?: Effect.Effect<ReadonlyMap<string, boolean>> | undefined
}

/**
 * IndexStore on PostgreSQL (decision 0034). The same contract as index.db
 * (test/services/IndexStore.contract.ts): one transaction per persisted
 * bundle, and an index run under withWriteLease is one transaction holding an
 * advisory lock, so a second server's run waits and every reader sees the
 * previous complete index until it commits; a server killed mid-run rolls back.
 */
export const makeIndexStorePg = (options: IndexStorePgOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const label = options.label ?? "postgresql index"
    const fail = (error: SqlError, hint = "check that the PostgreSQL server is reachable (`akm health`); the index is rebuilt by `akm index --full`"): WorkspaceUnavailable =>
      new WorkspaceUnavailable({ path: label, reason: `${error.message}: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}`, hint })
    // The same helper as the state stores' history (../migrationHistory.ts): one server at a time, newer databases refused.
    const migrate = migrateHistory({
      table: INDEX_MIGRATIONS_TABLE,
      migrations: indexMigrationsPg,
      lock: MIGRATION_LOCK,
      label,
      hint: "upgrade akm on this server: another akm wrote this index"
    }).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.catchIf((e): e is Migrator.MigrationError => e instanceof Migrator.MigrationError, (e) =>
      Effect.fail(new WorkspaceUnavailable({ path: label, reason: e.message, hint: "run `akm health`" }))))
    // Migrated once per process; a failure (the server unreachable) is not kept: the next call tries again.
    let migrated: ReadonlyArray<string> | undefined
    const once = yield* Effect.makeSemaphore(1)
    const ready = Effect.suspend(() =>
      migrated !== undefined
        ? Effect.succeed(migrated)
        : once.withPermits(1)(Effect.suspend(() =>
          migrated !== undefined
            ? Effect.succeed(migrated)
            : Effect.tap(Effect.mapError(migrate, (e) => (e instanceof SqlError ? fail(e, MIGRATION_FAILED) : e)), (names) => {
              migrated = names
            }))))

    /** Statements after the migrations; a SqlError becomes the store's error, any other failure stays. */
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError> | IndexStoreError, R> =>
      Effect.mapInputContext(
        Effect.zipRight(ready, Effect.mapError(effect, (e) => (e instanceof SqlError ? fail(e) : e) as Exclude<E, SqlError> | WorkspaceUnavailable)),
        (ctx: Context.Context<R>) => own(ctx as Context.Context<never>) as Context.Context<R>
      )
    /** `effect` in this store's transaction (a savepoint inside one already open), which its own statements see through IndexTx. */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (tx) =>
        (Option.isSome(tx) ? Effect.provideService(effect, IndexTx, tx.value) : effect) as Effect.Effect<A, E, R>))
    const write = <A, E, R>(effect: Effect.Effect<A, E, R>) => run(transaction(effect))
    /** The caller's effect run inside this store's transaction, in the caller's own context. */
    const asCaller = <A, E, R>(outer: Option.Option<Tx>, effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Effect.serviceOption(IndexTx), (tx) => Effect.mapInputContext(effect, (ctx: Context.Context<R>) => callers(ctx as Context.Context<never>, outer, tx) as Context.Context<R>))
    const current = <A>(found: Effect.Effect<A, IndexStoreError>, items: (a: A, edit: (item: IndexedItem) => IndexedItem) => A) =>
      options.writable === undefined
        ? found
        : Effect.flatMap(found, (a) =>
          Effect.map(options.writable!, (writable) =>
            writable.size === 0 ? a : items(a, (item) => {
              const now = writable.get(item.bundle)
              return now === undefined || now === item.editable ? item : { ...item, editable: now }
            })))

    const persistStreamed = <A, E, R>(
      bundle: string,
      produce: (sink: DocumentSink) => Effect.Effect<PersistEnd<A>, E, R>,
      opts?: { readonly dryRun?: boolean | undefined }
    ): Effect.Effect<PersistStreamed<A>, E | IndexStoreError, R> => {
      const dryRun = opts?.dryRun === true
      const body = (outer: Option.Option<Tx>) => Effect.gen(function* () {
        const session = yield* persistSession(sql, bundle, dryRun)
        const sink: DocumentSink = { write: (docs, inputs) => run(session.write(docs, inputs)), keep: session.keep }
        const end = yield* asCaller(outer, produce(sink))
        if (end._tag === "Discard") return yield* Effect.fail(new Discarded(end.value))
        const summary = yield* session.finish
        if (!dryRun) yield* writeManifest(sql, bundle, end.manifest)
        return { summary, value: end.value } satisfies PersistStreamed<A>
      })
      return Effect.contextWithEffect((caller: Context.Context<never>) => {
        const outer = Context.getOption(caller, SqlClient.TransactionConnection)
        return run(dryRun ? body(outer) : transaction(body(outer)))
      }).pipe(
        Effect.catchIf((error): error is Discarded => error instanceof Discarded, (discarded) => Effect.succeed<PersistStreamed<A>>({ summary: undefined, value: discarded.value as A }))
      ) as Effect.Effect<PersistStreamed<A>, E | IndexStoreError, R>
    }

    const renameRows = (from: string, to: string) =>
      Effect.gen(function* () {
        const rows = yield* sql<{ id: number; doc: string }>`SELECT id, doc FROM idx_documents WHERE bundle = ${from}`
        for (const row of rows) {
          const doc = decodeDoc(row.doc)
          const moved = { ...doc, bundle: to, ref: `${to}//${doc.conceptId}` }
          const json = JSON.stringify(moved)
          const digest = createHash("sha1").update(json).digest("base64")
          // Stored inputs name the old refs (findings, lint projections): the next scan projects these items again.
          yield* sql`UPDATE idx_documents SET bundle = ${to}, ref = ${moved.ref}, digest = ${digest}, doc = ${json}, inputs = NULL, inputs_digest = NULL WHERE id = ${row.id}`.raw
        }
        const prefix = `${from}//`
        const rekey = (table: string, column: string) =>
          sql`UPDATE ${sql(table)} SET ${sql(column)} = ${`${to}//`} || substr(${sql(column)}, ${prefix.length + 1})
            WHERE left(${sql(column)}, ${prefix.length}) = ${prefix}`.raw
        yield* rekey("idx_documents", "superseded_by")
        yield* rekey("idx_ranking_features", "ref")
        yield* sql`UPDATE idx_manifest SET bundle = ${to} WHERE bundle = ${from}`.raw
        yield* sql`UPDATE idx_bundles SET name = ${to} WHERE name = ${from}`.raw
        // Successor refs changed: what the filters leave out may have.
        yield* bumpGeneration(sql)
      })

    const lease = yield* Effect.makeSemaphore(1)
    const searchCache = makeSearchCache()

    return IndexStore.of({
      init: run(Effect.gen(function* () {
        const names = yield* ready
        yield* sql`SELECT 1`
        return { path: label, migrations: names, integrity: "ok" }
      })),
      persist: (bundle, docs, manifest) =>
        write(Effect.gen(function* () {
          const summary = yield* persistBundle(sql, bundle, docs, false, manifest?.root)
          yield* writeManifest(sql, bundle, manifest)
          return summary
        })),
      diff: (bundle, docs) => run(persistBundle(sql, bundle, docs, true)),
      persistStreamed,
      manifest: (bundle) =>
        run(Effect.gen(function* () {
          const [row] = yield* sql<BundleRow>`SELECT ${sql.literal(BUNDLE_COLUMNS)} FROM idx_bundles WHERE name = ${bundle}`
          if (row === undefined || row.adapter === null || row.version === null || row.indexedAt === null) return undefined
          const files = (yield* sql<{ path: string; size: number; mtime_ms: number; hash: string | null }>`SELECT path, size, mtime_ms, hash FROM idx_manifest
            WHERE bundle = ${bundle} ORDER BY path COLLATE "C"`).map((f) => ({ path: f.path, size: f.size, mtimeMs: f.mtime_ms, ...(f.hash === null ? {} : { hash: f.hash }) }))
          const state = bundleState(row)
          return {
            bundle,
            adapter: { id: row.adapter, version: row.version },
            indexedAt: row.indexedAt,
            files,
            ...(row.root === null ? {} : { root: row.root }),
            ...(state.writable === undefined ? {} : { writable: state.writable }),
            ...(state.diagnostics === undefined ? {} : { diagnostics: state.diagnostics }),
            ...(state.staleReason === undefined ? {} : { staleReason: state.staleReason })
          } satisfies BundleManifest
        })),
      itemInputs: (bundle) =>
        run(Effect.map(sql<{ ref: string; inputs: string }>`SELECT ref, inputs FROM idx_documents WHERE bundle = ${bundle} AND inputs IS NOT NULL`, (rows) =>
          new Map(rows.map((row) => [row.ref, JSON.parse(row.inputs) as ItemInputs] as const)) as ReadonlyMap<string, ItemInputs>)),
      markStale: (bundle, reason) => write(Effect.zipRight(countItems(sql, bundle), sql`UPDATE idx_bundles SET stale_reason = ${reason} WHERE name = ${bundle}`)),
      bundles: run(Effect.map(sql<BundleRow>`SELECT ${sql.literal(BUNDLE_COLUMNS)} FROM idx_bundles ORDER BY name COLLATE "C"`, (rows) =>
        rows.map((row): BundleIndexState => ({ bundle: row.name, items: row.items, ...bundleState(row) })))),
      lastIndexed: run(Effect.map(sql<{ value: string }>`SELECT value FROM idx_meta WHERE key = 'indexed_at'`, (rows) => rows[0]?.value)),
      recordIndexRun: (at) => run(sql`INSERT INTO idx_meta (key, value) VALUES ('indexed_at', ${at}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`.raw),
      resolve: (ref) =>
        run(Effect.map(sql<{ doc: string; root: string | null }>`SELECT d.doc, b.root FROM idx_documents d LEFT JOIN idx_bundles b ON b.name = d.bundle WHERE d.ref = ${ref}`, (rows) => {
          if (rows[0] === undefined) return undefined
          const doc = decodeDoc(rows[0].doc)
          const path = absoluteFrom(rows[0].root, doc.path)
          return path === doc.path ? doc : { ...doc, path }
        })),
      has: (bundle, conceptId) => run(Effect.map(sql`SELECT 1 FROM idx_documents WHERE ref = ${`${bundle}//${conceptId}`}`, (rows) => rows.length > 0)),
      candidates: (query) => current(run(candidates(sql, query, searchCache)), (set, edit) => ({ ...set, candidates: set.candidates.map((c) => ({ ...c, item: edit(c.item) })) })),
      items: (refs, filters) => current(run(itemsByRef(sql, refs, filters)), (items, edit) => items.map(edit)),
      excerpts: (refs, chars) => run(excerpts(sql, refs, chars)),
      browse: (query) => current(run(browse(sql, query)), (page, edit) => ({ ...page, items: page.items.map(edit) })),
      counts: run(Effect.map(sql<{ name: string; items: number }>`SELECT name, items FROM idx_bundles WHERE items > 0 ORDER BY name COLLATE "C"`, (rows) =>
        Object.fromEntries(rows.map((row) => [row.name, row.items])))),
      typeSizes: (type) =>
        run(sql<{ bundle: string; items: number; bytes: number }>`SELECT bundle, count(*)::int AS items, coalesce(sum(bytes), 0)::float8 AS bytes FROM idx_documents
          WHERE type = ${type} AND (belief_state IS NULL OR belief_state <> 'retired') GROUP BY bundle ORDER BY bundle COLLATE "C"`),
      removeBundle: (bundle) =>
        write(Effect.gen(function* () {
          const rows = yield* sql<{ id: number }>`SELECT id FROM idx_documents WHERE bundle = ${bundle}`
          yield* deleteDocuments(sql, rows.map((row) => row.id))
          yield* refreshPostings(sql, rows.map((row) => row.id))
          yield* sql`DELETE FROM idx_manifest WHERE bundle = ${bundle}`
          yield* sql`DELETE FROM idx_bundles WHERE name = ${bundle}`
          return rows.length
        })),
      renameBundle: (from, to) => write(renameRows(from, to)),
      cachedTokens: (hash) => run(Effect.map(sql<{ tokens: number }>`SELECT tokens FROM idx_token_counts WHERE hash = ${hash}`, (rows) => rows[0]?.tokens)),
      storeTokens: (hash, tokens) =>
        run(sql`INSERT INTO idx_token_counts (hash, tokens) VALUES (${hash}, ${tokens}) ON CONFLICT (hash) DO UPDATE SET tokens = excluded.tokens`.raw),
      replaceUtilities: (utilities) =>
        write(Effect.gen(function* () {
          yield* sql`DELETE FROM idx_ranking_features`
          const rows = [...utilities].map(([ref, { value, at }]) => ({ ref, utility: value, updated_at: at }))
          for (let i = 0; i < rows.length; i += 5_000) yield* sql`INSERT INTO idx_ranking_features ${sql.insert(rows.slice(i, i + 5_000))}`
        })),
      updateUtility: (ref, utility, at) =>
        run(sql`INSERT INTO idx_ranking_features (ref, utility, updated_at) VALUES (${ref}, ${utility}, ${at})
          ON CONFLICT (ref) DO UPDATE SET utility = excluded.utility, updated_at = excluded.updated_at`.raw),
      retireOverlay: (entries) =>
        entries.length === 0
          ? Effect.succeed(0)
          : write(Effect.map(
            Effect.tap(
              Effect.forEach(entries, (e) => sql<{ id: number }>`UPDATE idx_documents SET belief_state = 'retired' WHERE ref = ${e.ref} AND hash = ${e.hash} RETURNING id`),
              (rows) => (rows.flat().length === 0 ? Effect.void : bumpGeneration(sql))
            ),
            (rows) => rows.flat().length
          )),
      // One writer per process (the semaphore keeps a waiting run from holding a connection), one per database (the lock).
      withWriteLease: (effect) =>
        lease.withPermits(1)(Effect.contextWithEffect((caller: Context.Context<never>) =>
          run(transaction(Effect.zipRight(
            sql`SELECT pg_advisory_xact_lock(${sql.literal(INDEX_LOCK)})`,
            // Fresh statistics with the run: without them a bulk-loaded index is planned as nearly empty and every search
            // reads every item's words instead of the GIN index (measured: 30 ms against a few at 5,000 items).
            Effect.tap(asCaller(Context.getOption(caller, SqlClient.TransactionConnection), effect), () => sql`ANALYZE idx_documents, idx_bundles`)
          )))))
    })
  })
