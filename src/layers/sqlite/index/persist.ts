import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import type { IndexDocument, PersistSummary } from "../../../domain/IndexDocument.js"
import type { BundleManifest } from "../../../services/IndexStore.js"
import { batches, documentColumns, fullTextRows, type DocumentColumns } from "./rows.js"

interface ExistingRow {
  readonly id: number
  readonly ref: string
  readonly digest: string
}

/** Documents are compared and written this many at a time, so memory stays bounded however large the bundle. */
const CHUNK = 500

type Write = { readonly doc: IndexDocument; readonly columns: DocumentColumns; readonly json: string }

const inBatches = <E>(ids: ReadonlyArray<number>, run: (batch: ReadonlyArray<number>) => Effect.Effect<unknown, E>) =>
  Effect.forEach(batches(ids.map((id) => ({ id })), 1), (batch) => run(batch.map((row) => row.id)), { discard: true })

/** Removes the full-text, link and outline rows of documents (their documents rows stay). */
export const deleteSearchRows = (sql: SqlClient.SqlClient, ids: ReadonlyArray<number>) =>
  inBatches(ids, (batch) =>
    Effect.all([
      sql`DELETE FROM documents_fts WHERE rowid IN ${sql.in(batch)}`,
      sql`DELETE FROM documents_trigram WHERE rowid IN ${sql.in(batch)}`,
      sql`DELETE FROM links WHERE document_id IN ${sql.in(batch)}`,
      sql`DELETE FROM outline WHERE document_id IN ${sql.in(batch)}`
    ], { discard: true }))

export const deleteDocuments = (sql: SqlClient.SqlClient, ids: ReadonlyArray<number>) =>
  Effect.zipRight(deleteSearchRows(sql, ids), inBatches(ids, (batch) => sql`DELETE FROM documents WHERE id IN ${sql.in(batch)}`))

const UPSERT_SET = [
  "bundle", "concept_id", "adapter", "type", "name", "description", "tags", "aliases", "hints", "quality", "belief_state",
  "superseded_by", "status", "stale_after", "pinned", "scope", "path", "hash", "bytes", "digest"
].map((column) => `${column} = excluded.${column}`).join(", ")

/** Inserts or updates documents by ref (an update keeps the row id), then their full-text, link and outline rows. */
const writeDocuments = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Write>) =>
  Effect.gen(function* () {
    const ids = new Map<string, number>()
    for (const batch of batches(writes.map((w) => w.columns), 22)) {
      const rows = yield* sql<{ id: number; ref: string }>`INSERT INTO documents ${sql.insert(batch)}
        ON CONFLICT (ref) DO UPDATE SET ${sql.literal(UPSERT_SET)} RETURNING id, ref`
      for (const row of rows) ids.set(row.ref, row.id)
    }
    const words: Array<ReturnType<typeof fullTextRows>["words"]> = []
    const trigram: Array<ReturnType<typeof fullTextRows>["trigram"]> = []
    const json: Array<{ id: number; doc: string }> = []
    const links: Array<{ document_id: number; target: string }> = []
    const outline: Array<{ document_id: number; position: number; depth: number; text: string; slug: string }> = []
    for (const write of writes) {
      const doc = write.doc
      const id = ids.get(doc.ref)!
      json.push({ id, doc: write.json })
      const rows = fullTextRows(id, doc)
      words.push(rows.words)
      trigram.push(rows.trigram)
      for (const target of new Set(doc.links ?? [])) links.push({ document_id: id, target })
      doc.outline?.forEach((h, position) => outline.push({ document_id: id, position, depth: h.depth, text: h.text, slug: h.slug }))
    }
    for (const batch of batches(json, 2)) yield* sql`INSERT INTO document_json ${sql.insert(batch)} ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`
    for (const batch of batches(words, 6)) yield* sql`INSERT INTO documents_fts ${sql.insert(batch)}`
    for (const batch of batches(trigram, 5)) yield* sql`INSERT INTO documents_trigram ${sql.insert(batch)}`
    for (const batch of batches(links, 2)) yield* sql`INSERT INTO links ${sql.insert(batch)}`
    for (const batch of batches(outline, 5)) yield* sql`INSERT INTO outline ${sql.insert(batch)}`
  })

/**
 * Compares a bundle's new documents with its rows by ref and digest (R-IDX-3)
 * and, unless `dryRun`, writes the difference: added and changed documents
 * chunk by chunk (changed ones keep their row id), vanished ones deleted with
 * their full-text, link and outline rows. The caller runs it in one BEGIN
 * IMMEDIATE transaction.
 */
export const persistBundle = (sql: SqlClient.SqlClient, bundle: string, docs: ReadonlyArray<IndexDocument>, dryRun: boolean) =>
  Effect.gen(function* () {
    const foreign = docs.find((doc) => doc.bundle !== bundle)
    if (foreign !== undefined) return yield* Effect.dieMessage(`persist(${bundle}) got ${foreign.ref} of another bundle`)
    const existing = yield* sql<ExistingRow>`SELECT id, ref, digest FROM documents WHERE bundle = ${bundle}`
    const byRef = new Map(existing.map((row) => [row.ref, row]))
    const seen = new Set<string>()
    const summary = { bundle, added: 0, updated: 0, removed: 0, unchanged: 0 }
    for (let start = 0; start < docs.length; start += CHUNK) {
      const writes: Array<Write> = []
      const rewritten: Array<number> = []
      for (const doc of docs.slice(start, start + CHUNK)) {
        if (seen.has(doc.ref)) continue
        seen.add(doc.ref)
        const { columns, json } = documentColumns(doc)
        const before = byRef.get(doc.ref)
        if (before === undefined) summary.added++
        else if (before.digest === columns.digest) {
          summary.unchanged++
          continue
        } else {
          summary.updated++
          rewritten.push(before.id)
        }
        writes.push({ doc, columns, json })
      }
      if (!dryRun) {
        yield* deleteSearchRows(sql, rewritten)
        yield* writeDocuments(sql, writes)
      }
    }
    const vanished = existing.filter((row) => !seen.has(row.ref)).map((row) => row.id)
    summary.removed = vanished.length
    if (!dryRun) yield* deleteDocuments(sql, vanished)
    return summary satisfies PersistSummary
  })

/** A bundle's item count, kept in its `bundles` row so listing bundles never scans the documents. */
export const countItems = (sql: SqlClient.SqlClient, bundle: string) =>
  sql`INSERT INTO bundles (name, items) VALUES (${bundle}, (SELECT count(*) FROM documents WHERE bundle = ${bundle}))
    ON CONFLICT (name) DO UPDATE SET items = excluded.items`

/** Records the item count and what this run saw of a bundle, and clears its stale mark. */
export const writeManifest = (sql: SqlClient.SqlClient, bundle: string, manifest: Omit<BundleManifest, "bundle" | "staleReason"> | undefined) =>
  Effect.gen(function* () {
    yield* countItems(sql, bundle)
    yield* sql`UPDATE bundles SET stale_reason = NULL WHERE name = ${bundle}`
    if (manifest === undefined) return
    const counts = manifest.diagnostics
    const writable = manifest.writable === undefined ? null : manifest.writable ? 1 : 0
    yield* sql`UPDATE bundles SET adapter = ${manifest.adapter.id}, adapter_version = ${manifest.adapter.version}, indexed_at = ${manifest.indexedAt},
      writable = ${writable}, errors = ${counts?.error ?? null}, warnings = ${counts?.warning ?? null}, infos = ${counts?.info ?? null}
      WHERE name = ${bundle}`
    yield* sql`DELETE FROM manifest WHERE bundle = ${bundle}`
    const files = manifest.files.map((f) => ({ bundle, path: f.path, size: f.size, mtime_ms: f.mtimeMs, hash: f.hash ?? null }))
    for (const batch of batches(files, 5)) yield* sql`INSERT INTO manifest ${sql.insert(batch)}`
  })
