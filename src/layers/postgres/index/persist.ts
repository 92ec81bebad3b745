import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { hash } from "node:crypto"
import type { IndexDocument, PersistSummary } from "../../../domain/IndexDocument.js"
import type { ItemInputs } from "../../../domain/ItemProjection.js"
import type { ManifestInput } from "../../../services/IndexStore.js"
import { documentColumns } from "../../sqlite/index/rows.js"
import { relativeTo } from "./paths.js"
import { refreshPostings } from "./postings.js"
import { substringsOf, wordsOf } from "./words.js"

/** Documents compared and written per statement: 64 rows of 33 columns stay far below PostgreSQL's 65,535 parameters. */
const CHUNK = 64
/** Ids or paths per DELETE. */
const DELETE_CHUNK = 1_000

interface ExistingRow {
  readonly id: number
  readonly ref: string
  readonly digest: string
  readonly inputs_digest: string | null
}

const chunks = <A>(values: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size))
  return out
}

/** The row of `idx_documents` for a document: sqlite/index/rows.ts's columns, its words and folded texts, its JSON and inputs. */
const rowOf = (doc: IndexDocument, { columns, json }: ReturnType<typeof documentColumns>, inputs: string | null, inputsDigest: string | null) => {
  const words = wordsOf(doc)
  return { ...columns, inputs_digest: inputsDigest, words: words.vector, words_length: words.length, ...substringsOf(doc), doc: json, inputs }
}

type Row = ReturnType<typeof rowOf>

const UPDATED = [
  "bundle", "concept_id", "adapter", "type", "name", "description", "tags", "aliases", "hints", "quality", "belief_state", "superseded_by", "status",
  "stale_after", "pinned", "scope", "path", "hash", "bytes", "digest", "diversity", "inputs_digest", "words", "words_length", "s_name", "s_description",
  "s_tags", "s_content", "doc", "inputs"
].map((c) => `${c} = excluded.${c}`).join(", ")

/** Inserts or updates rows by ref (an update keeps the row id); yields the rows' ids. */
const upsert = (sql: SqlClient.SqlClient, rows: ReadonlyArray<Row>) =>
  rows.length === 0
    ? Effect.succeed([] as ReadonlyArray<{ id: number }>)
    : sql<{ id: number }>`INSERT INTO idx_documents ${sql.insert(rows as unknown as ReadonlyArray<Record<string, unknown>>)}
      ON CONFLICT (ref) DO UPDATE SET ${sql.literal(UPDATED)} RETURNING id`

export const deleteDocuments = (sql: SqlClient.SqlClient, ids: ReadonlyArray<number>) =>
  Effect.forEach(chunks(ids, DELETE_CHUNK), (batch) => sql`DELETE FROM idx_documents WHERE id IN ${sql.in(batch)}`.raw, { discard: true })

/**
 * A diff-persist of one bundle with its documents arriving in batches
 * (R-IDX-3), as sqlite/index/persist.ts does it: each batch compared by ref
 * and digest, its added and changed documents written at once; `finish`
 * deletes the refs no batch named or kept. The caller runs it in one transaction.
 */
export const persistSession = (sql: SqlClient.SqlClient, bundle: string, dryRun: boolean, root?: string) =>
  Effect.map(Effect.all([
    sql<ExistingRow>`SELECT id, ref, digest, inputs_digest FROM idx_documents WHERE bundle = ${bundle}`,
    sql<{ root: string | null }>`SELECT root FROM idx_bundles WHERE name = ${bundle}`
  ]), ([existing, [known]]) => {
    // The root paths are made relative to: this persist's manifest's, else the one the bundle was last indexed from.
    const base = root ?? known?.root ?? undefined
    const byRef = new Map(existing.map((row) => [row.ref, row]))
    const seen = new Set<string>()
    // Items written or deleted: their blocks of the search lists are rewritten once, at the end (postings.ts).
    const dirty = new Set<number>()
    const summary = { bundle, added: 0, updated: 0, removed: 0, unchanged: 0 }
    const writeChunk = (docs: ReadonlyArray<IndexDocument>, inputs: ReadonlyArray<ItemInputs> | undefined) =>
      Effect.suspend(() => {
        const rows: Array<Row> = []
        const reinput: Array<readonly [number, string, string]> = []
        docs.forEach((given, i) => {
          if (seen.has(given.ref)) return
          const doc = relativeTo(base, given)
          seen.add(doc.ref)
          const stored = inputs?.[i]
          const inputsJson = stored === undefined ? null : JSON.stringify(stored)
          const inputsDigest = inputsJson === null ? null : hash("sha1", inputsJson, "base64")
          const before = byRef.get(doc.ref)
          const made = documentColumns(doc)
          const digest = made.columns.digest
          if (before === undefined) summary.added++
          else if (before.digest === digest) {
            summary.unchanged++
            if (inputsJson !== null && inputsDigest !== null && before.inputs_digest !== inputsDigest) reinput.push([before.id, inputsJson, inputsDigest])
            return
          } else summary.updated++
          if (!dryRun) rows.push(rowOf(doc, made, inputsJson, inputsDigest))
        })
        if (dryRun) return Effect.void
        return Effect.zipRight(
          Effect.map(upsert(sql, rows), (written) => {
            for (const row of written) dirty.add(row.id)
          }),
          Effect.forEach(reinput, ([id, json, digest]) => sql`UPDATE idx_documents SET inputs = ${json}, inputs_digest = ${digest} WHERE id = ${id}`.raw, { discard: true })
        )
      })
    const write = (docs: ReadonlyArray<IndexDocument>, inputs?: ReadonlyArray<ItemInputs>) =>
      Effect.suspend(() => {
        const foreign = docs.find((doc) => doc.bundle !== bundle)
        if (foreign !== undefined) return Effect.dieMessage(`persist(${bundle}) got ${foreign.ref} of another bundle`)
        if (inputs !== undefined && inputs.length !== docs.length) return Effect.dieMessage(`persist(${bundle}) got ${inputs.length} inputs for ${docs.length} documents`)
        return Effect.forEach(chunks(docs.map((_, i) => i), CHUNK), (at) =>
          writeChunk(at.map((i) => docs[i]!), inputs === undefined ? undefined : at.map((i) => inputs[i]!)), { discard: true })
      })
    const keep = (refs: ReadonlyArray<string>) =>
      Effect.sync(() => {
        for (const ref of refs) {
          if (seen.has(ref) || !byRef.has(ref)) continue
          seen.add(ref)
          summary.unchanged++
        }
      })
    const finish = Effect.suspend(() => {
      const vanished = existing.filter((row) => !seen.has(row.ref)).map((row) => row.id)
      summary.removed = vanished.length
      for (const id of vanished) dirty.add(id)
      return Effect.as(dryRun ? Effect.void : Effect.zipRight(deleteDocuments(sql, vanished), refreshPostings(sql, dirty)), { ...summary } satisfies PersistSummary)
    })
    return { write, keep, finish }
  })

/** persistSession over documents given all at once. */
export const persistBundle = (sql: SqlClient.SqlClient, bundle: string, docs: ReadonlyArray<IndexDocument>, dryRun: boolean, root?: string) =>
  Effect.flatMap(persistSession(sql, bundle, dryRun, root), (session) => Effect.zipRight(session.write(docs), session.finish))

/** A bundle's item count, kept in its row so listing bundles never scans the documents. */
export const countItems = (sql: SqlClient.SqlClient, bundle: string) =>
  sql`INSERT INTO idx_bundles (name, items, words)
    SELECT ${bundle}, count(*)::int, coalesce(sum(words_length), 0)::float8 FROM idx_documents WHERE bundle = ${bundle}
    ON CONFLICT (name) DO UPDATE SET items = excluded.items, words = excluded.words`.raw

/** Records the item count and what this run saw of a bundle, and clears its stale mark. */
export const writeManifest = (sql: SqlClient.SqlClient, bundle: string, manifest: ManifestInput | undefined) =>
  Effect.gen(function* () {
    yield* countItems(sql, bundle)
    yield* sql`UPDATE idx_bundles SET stale_reason = NULL WHERE name = ${bundle}`.raw
    if (manifest === undefined) return
    const counts = manifest.diagnostics
    const writable = manifest.writable === undefined ? null : manifest.writable ? 1 : 0
    yield* sql`UPDATE idx_bundles SET adapter = ${manifest.adapter.id}, adapter_version = ${manifest.adapter.version}, indexed_at = ${manifest.indexedAt},
      writable = ${writable}, root = ${manifest.root ?? null}, errors = ${counts?.error ?? null}, warnings = ${counts?.warning ?? null}, infos = ${counts?.info ?? null}
      WHERE name = ${bundle}`.raw
    // Only the rows that differ are written (decision 0022).
    const before = new Map<string, { size: number; mtime_ms: number; hash: string | null }>()
    for (const row of yield* sql<{ path: string; size: number; mtime_ms: number; hash: string | null }>`SELECT path, size, mtime_ms, hash FROM idx_manifest WHERE bundle = ${bundle}`) {
      before.set(row.path, row)
    }
    const changed: Array<Record<string, unknown>> = []
    for (const f of manifest.files) {
      const row = before.get(f.path)
      before.delete(f.path)
      if (row === undefined || row.size !== f.size || row.mtime_ms !== f.mtimeMs || row.hash !== (f.hash ?? null)) {
        changed.push({ bundle, path: f.path, size: f.size, mtime_ms: f.mtimeMs, hash: f.hash ?? null })
      }
    }
    for (const gone of chunks([...before.keys()], DELETE_CHUNK)) yield* sql`DELETE FROM idx_manifest WHERE bundle = ${bundle} AND path IN ${sql.in(gone)}`.raw
    for (const batch of chunks(changed, 2_000)) {
      yield* sql`INSERT INTO idx_manifest ${sql.insert(batch)}
        ON CONFLICT (bundle, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, hash = excluded.hash`.raw
    }
  })
