import { Effect } from "effect"
import { hash } from "node:crypto"
import type { IndexDocument, PersistSummary } from "../../../domain/IndexDocument.js"
import type { ItemInputs } from "../../../domain/ItemProjection.js"
import type { DiagnosticCounts, ManifestFile, ManifestInput } from "../../../services/IndexStore.js"
import type { SqlDriver } from "../driver.js"
import { batches, documentColumns, fullTextRows, type DocumentColumns } from "./rows.js"
import { inList, sql } from "./sqlText.js"

/** A stored document row: id, ref, digest, inputs digest. */
type ExistingRow = readonly [id: number, ref: string, digest: string, inputsDigest: string | null]

/** Documents are compared and written this many at a time, so memory stays bounded however large the bundle. */
const CHUNK = 64

type Write = { readonly doc: IndexDocument; readonly columns: DocumentColumns; readonly json: string; readonly inputs: string | null; readonly inputsDigest: string | null }

const inBatches = <E>(ids: ReadonlyArray<number>, run: (batch: ReadonlyArray<number>) => Effect.Effect<unknown, E>) =>
  Effect.forEach(batches(ids.map((id) => ({ id })), 1), (batch) => run(batch.map((row) => row.id)), { discard: true })

/** Removes the full-text, link and outline rows of documents (their documents rows stay). */
export const deleteSearchRows = (db: SqlDriver, ids: ReadonlyArray<number>) =>
  inBatches(ids, (batch) =>
    Effect.all([
      db.run(sql`DELETE FROM documents_fts WHERE rowid IN ${inList(batch)}`),
      db.run(sql`DELETE FROM documents_trigram WHERE rowid IN ${inList(batch)}`),
      db.run(sql`DELETE FROM links WHERE document_id IN ${inList(batch)}`),
      db.run(sql`DELETE FROM outline WHERE document_id IN ${inList(batch)}`)
    ], { discard: true }))

export const deleteDocuments = (db: SqlDriver, ids: ReadonlyArray<number>) =>
  Effect.zipRight(deleteSearchRows(db, ids), inBatches(ids, (batch) => db.run(sql`DELETE FROM documents WHERE id IN ${inList(batch)}`)))

/** The columns of `documents` as documentColumns names them, in insert order. */
const DOCUMENT_COLUMNS = [
  "ref", "bundle", "concept_id", "adapter", "type", "name", "description", "tags", "aliases", "hints", "quality", "belief_state",
  "superseded_by", "status", "stale_after", "pinned", "scope", "path", "hash", "bytes", "digest", "diversity"
] as const satisfies ReadonlyArray<keyof DocumentColumns>

/** Every column a write sets: the document's, then the digest of its stored inputs. */
const ROW_COLUMNS = [...DOCUMENT_COLUMNS, "inputs_digest"] as const

const UPSERT_SET = ROW_COLUMNS.filter((column) => column !== "ref").map((column) => `${column} = excluded.${column}`).join(", ")

type Value = string | number | null

/**
 * Rows per multi-row INSERT, largest first: every statement text is one of a
 * few per table, prepared once and reused from the driver's statement cache.
 * Statements sized to each batch would be prepared afresh each time, each a
 * large native program that lives until its JavaScript handle is collected.
 */
const ROWS_PER_STATEMENT = [256, 64, 16, 4, 1] as const

const statements = new Map<string, string>()

/** `INSERT INTO <table> (<columns>) VALUES (?, …), … <suffix>` for `rows` rows, built once. */
const insertText = (table: string, columns: ReadonlyArray<string>, rows: number, suffix: string): string => {
  const key = `${table}\u0000${rows}\u0000${suffix}`
  let text = statements.get(key)
  if (text === undefined) {
    const row = `(${columns.map(() => "?").join(", ")})`
    text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${new Array<string>(rows).fill(row).join(", ")}${suffix === "" ? "" : ` ${suffix}`}`
    statements.set(key, text)
  }
  return text
}

/**
 * Inserts rows (values in `columns` order) in fixed-size statements; returns
 * what the statements return (a `suffix` with RETURNING). The statements and
 * their parameters are laid out first and run one after another.
 */
export const insertRows = <A extends object = never>(db: SqlDriver, table: string, columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<Value>>, suffix = "") =>
  Effect.suspend(() => {
    const statements: Array<readonly [string, ReadonlyArray<Value>]> = []
    for (let at = 0; at < rows.length;) {
      const size = ROWS_PER_STATEMENT.find((n) => n <= rows.length - at)!
      const params: Array<Value> = []
      for (let i = at; i < at + size; i++) for (const value of rows[i]!) params.push(value)
      statements.push([insertText(table, columns, size, suffix), params])
      at += size
    }
    const returning = suffix.includes("RETURNING")
    return Effect.map(
      Effect.forEach(statements, ([text, params]) => (returning ? db.rows<A>({ text, params }) : Effect.as(db.run({ text, params }), [] as ReadonlyArray<A>))),
      (results) => results.flat()
    )
  })

/** The full-text, JSON, link and outline rows of documents stored under the given ids. */
const searchRows = (writes: ReadonlyArray<Write>, ids: ReadonlyMap<string, number>) => {
  const json: Array<ReadonlyArray<Value>> = []
  const fullText: Array<ReadonlyArray<Value>> = []
  const links: Array<ReadonlyArray<Value>> = []
  const outline: Array<ReadonlyArray<Value>> = []
  for (const write of writes) {
    const doc = write.doc
    const id = ids.get(doc.ref)!
    json.push([id, write.json, write.inputs])
    const rows = fullTextRows(id, doc)
    const w = rows.words
    const t = rows.trigram
    fullText.push([id, w.name, w.description, w.tags, w.hints, w.content, t.name, t.description, t.tags, t.content])
    for (const target of new Set(doc.links ?? [])) links.push([id, target])
    doc.outline?.forEach((h, position) => outline.push([id, position, h.depth, h.text, h.slug]))
  }
  return { json, fullText, links, outline }
}

/**
 * Full-text rows wait in a temporary table and reach FTS5 this many at a time,
 * each table in one INSERT … SELECT. FTS5 writes its pending terms out as a
 * new segment whenever a statement transaction opens — at every multi-row
 * INSERT into any table, once FTS5 is part of the transaction — so rows
 * inserted a few at a time between the documents' own statements made a
 * segment of a few rows each, and much of the build's SQLite time went to
 * writing and merging them (docs/decisions/0050-index-build-speed.md).
 * Waiting in SQLite, not in JavaScript, keeps them out of V8's heap (spec 10
 * §2 memory bound, docs/decisions/0006-parallel-scan.md): at most
 * FULL_TEXT_ROWS rows, a few MB in index.db's in-memory temp store.
 */
const FULL_TEXT_ROWS = 512

const STAGE = "temp.akm_full_text"
const STAGE_COLUMNS = ["id", "w_name", "w_description", "w_tags", "w_hints", "w_content", "t_name", "t_description", "t_tags", "t_content"]
const CREATE_STAGE = `CREATE TEMP TABLE IF NOT EXISTS akm_full_text (id INTEGER PRIMARY KEY, w_name, w_description, w_tags, w_hints, w_content,
  t_name, t_description, t_tags, t_content)`
const FLUSH_WORDS = `INSERT INTO documents_fts (rowid, name, description, tags, hints, content)
  SELECT id, w_name, w_description, w_tags, w_hints, w_content FROM ${STAGE} ORDER BY id`
const FLUSH_TRIGRAM = `INSERT INTO documents_trigram (rowid, name, description, tags, content)
  SELECT id, t_name, t_description, t_tags, t_content FROM ${STAGE} ORDER BY id`

/** Full-text rows of written documents that wait in the temporary table. */
interface PendingFullText {
  staged: number
  created: boolean
}

/** Moves the waiting full-text rows into FTS5 once FULL_TEXT_ROWS wait, or whatever waits when `all`. */
const flushFullText = (db: SqlDriver, pending: PendingFullText, all: boolean) =>
  Effect.suspend(() => {
    if (pending.staged === 0 || (!all && pending.staged < FULL_TEXT_ROWS)) return Effect.void
    pending.staged = 0
    return Effect.all([
      db.run({ text: FLUSH_WORDS, params: [] }),
      db.run({ text: FLUSH_TRIGRAM, params: [] }),
      db.run({ text: `DELETE FROM ${STAGE}`, params: [] })
    ], { discard: true })
  })

/** Adds full-text rows to the temporary table (made on first use in this connection). */
const stageFullText = (db: SqlDriver, pending: PendingFullText, rows: ReadonlyArray<ReadonlyArray<Value>>) =>
  Effect.suspend(() => {
    if (rows.length === 0) return Effect.void
    pending.staged += rows.length
    const insert = insertRows(db, STAGE, STAGE_COLUMNS, rows)
    if (pending.created) return insert
    pending.created = true
    // Rows left by a session that never finished are not this session's.
    return Effect.all([db.run({ text: CREATE_STAGE, params: [] }), db.run({ text: `DELETE FROM ${STAGE}`, params: [] }), insert], { discard: true })
  })

/**
 * Inserts or updates documents by ref (an update keeps the row id), then their
 * JSON, link and outline rows; their full-text rows join `pending`. Written
 * without generator functions on purpose: a generator closing over a batch
 * kept the batch alive well past its write (seen in V8 under Effect.gen), so
 * every document reached the old generation and the heap grew with the bundle
 * (spec 10 §2 memory bound).
 */
const writeDocuments = (db: SqlDriver, writes: ReadonlyArray<Write>, pending: PendingFullText) =>
  writes.length === 0 ? Effect.void : Effect.flatMap(
    insertRows<{ id: number; ref: string }>(
      db,
      "documents",
      ROW_COLUMNS,
      writes.map((w) => [...DOCUMENT_COLUMNS.map((column) => w.columns[column]), w.inputsDigest]),
      `ON CONFLICT (ref) DO UPDATE SET ${UPSERT_SET} RETURNING id, ref`
    ),
    (inserted) => {
      const rows = searchRows(writes, new Map(inserted.map((row) => [row.ref, row.id] as const)))
      return Effect.all([
        insertRows(db, "document_json", ["id", "doc", "inputs"], rows.json, "ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, inputs = excluded.inputs"),
        insertRows(db, "links", ["document_id", "target"], rows.links),
        insertRows(db, "outline", ["document_id", "position", "depth", "text", "slug"], rows.outline),
        stageFullText(db, pending, rows.fullText),
        flushFullText(db, pending, false)
      ], { discard: true })
    }
  )

/**
 * A diff-persist of one bundle with its documents arriving in batches
 * (R-IDX-3): each batch is compared with the rows by ref and digest and,
 * unless `dryRun`, its added and changed documents are written at once
 * (changed ones keep their row id); `finish` then deletes the refs no batch
 * named, with their full-text, link and outline rows. Only the refs and
 * digests of the bundle's rows stay in memory between batches. The caller
 * runs it in one BEGIN IMMEDIATE transaction.
 */
export const persistSession = (db: SqlDriver, bundle: string, dryRun: boolean) =>
  // As values: 20,000 rows on a one-file write's refresh, built as arrays in about half the time of objects.
  Effect.map(db.values(sql`SELECT id, ref, digest, inputs_digest FROM documents WHERE bundle = ${bundle}`), (rows) => {
    const existing = rows as ReadonlyArray<ExistingRow>
    // Each stored row's position, and whether a batch or `keep` named it: one lookup per ref, no set of 20,000 refs.
    const byRef = new Map<string, number>()
    for (let at = 0; at < existing.length; at++) byRef.set(existing[at]![1], at)
    const seenRows = new Uint8Array(existing.length)
    // Stored rows seen so far: when all were, none vanished and finish need not look at each.
    let seenStored = 0
    // Refs with no stored row that a batch wrote (a ref named twice is written once).
    const seenNew = new Set<string>()
    const summary = { bundle, added: 0, updated: 0, removed: 0, unchanged: 0 }
    const pending: PendingFullText = { staged: 0, created: false }
    /** Compares one chunk with the rows and writes what changed (JSON and digests are made here, just before their write). */
    const writeChunk = (docs: ReadonlyArray<IndexDocument>, inputs: ReadonlyArray<ItemInputs> | undefined) =>
      Effect.suspend(() => {
        const writes: Array<Write> = []
        const rewritten: Array<number> = []
        // Unchanged documents whose stored inputs differ (or are missing): only the inputs are written.
        const reinput: Array<readonly [number, string, string]> = []
        docs.forEach((doc, i) => {
          const at = byRef.get(doc.ref)
          if (at === undefined ? seenNew.has(doc.ref) : seenRows[at] === 1) return
          if (at === undefined) seenNew.add(doc.ref)
          else seenRows[at] = 1
          const { columns, json } = documentColumns(doc)
          const given = inputs?.[i]
          const inputsJson = given === undefined ? null : JSON.stringify(given)
          const inputsDigest = inputsJson === null ? null : hash("sha1", inputsJson, "base64")
          const before = at === undefined ? undefined : existing[at]!
          if (before === undefined) summary.added++
          else {
            seenStored++
            if (before[2] === columns.digest) {
              summary.unchanged++
              if (inputsJson !== null && inputsDigest !== null && before[3] !== inputsDigest) reinput.push([before[0], inputsJson, inputsDigest])
              return
            }
            summary.updated++
            rewritten.push(before[0])
          }
          writes.push({ doc, columns, json, inputs: inputsJson, inputsDigest })
        })
        if (dryRun) return Effect.void
        return Effect.all([
          deleteSearchRows(db, rewritten),
          writeDocuments(db, writes, pending),
          Effect.forEach(reinput, ([id, json, digest]) =>
            Effect.zipRight(db.run(sql`UPDATE document_json SET inputs = ${json} WHERE id = ${id}`), db.run(sql`UPDATE documents SET inputs_digest = ${digest} WHERE id = ${id}`)), { discard: true })
        ], { discard: true })
      })
    const write = (docs: ReadonlyArray<IndexDocument>, inputs?: ReadonlyArray<ItemInputs>) =>
      Effect.suspend(() => {
        const foreign = docs.find((doc) => doc.bundle !== bundle)
        if (foreign !== undefined) return Effect.dieMessage(`persist(${bundle}) got ${foreign.ref} of another bundle`)
        if (inputs !== undefined && inputs.length !== docs.length) return Effect.dieMessage(`persist(${bundle}) got ${inputs.length} inputs for ${docs.length} documents`)
        const chunks: Array<readonly [ReadonlyArray<IndexDocument>, ReadonlyArray<ItemInputs> | undefined]> = []
        for (let start = 0; start < docs.length; start += CHUNK) chunks.push([docs.slice(start, start + CHUNK), inputs?.slice(start, start + CHUNK)])
        return Effect.forEach(chunks, ([chunk, chunkInputs]) => writeChunk(chunk, chunkInputs), { discard: true })
      })
    /** Rows the scan kept unread: seen, unchanged, never deleted. */
    const keep = (refs: ReadonlyArray<string>) =>
      Effect.sync(() => {
        for (const ref of refs) {
          const at = byRef.get(ref)
          if (at === undefined || seenRows[at] === 1) continue
          seenRows[at] = 1
          seenStored++
          summary.unchanged++
        }
      })
    const finish = Effect.suspend(() => {
      const vanished = seenStored === existing.length ? [] : existing.filter((_, at) => seenRows[at] === 0).map((row) => row[0])
      summary.removed = vanished.length
      return Effect.as(dryRun ? Effect.void : Effect.zipRight(flushFullText(db, pending, true), deleteDocuments(db, vanished)), { ...summary } satisfies PersistSummary)
    })
    return { write, keep, finish }
  })

/** persistSession over documents given all at once. */
export const persistBundle = (db: SqlDriver, bundle: string, docs: ReadonlyArray<IndexDocument>, dryRun: boolean) =>
  Effect.flatMap(persistSession(db, bundle, dryRun), (session) => Effect.zipRight(session.write(docs), session.finish))

/** A bundle's item count, kept in its `bundles` row so listing bundles never scans the documents. */
export const countItems = (db: SqlDriver, bundle: string) =>
  db.run(sql`INSERT INTO bundles (name, items) VALUES (${bundle}, (SELECT count(*) FROM documents WHERE bundle = ${bundle}))
    ON CONFLICT (name) DO UPDATE SET items = excluded.items`)

/**
 * The manifest rows stored for a bundle, as files in path order (the walk's
 * order). As values: a no-op reindex reads every file's row, and arrays are
 * built in half the time of objects.
 */
export const storedManifest = (db: SqlDriver, bundle: string) =>
  Effect.map(db.values(sql`SELECT path, size, mtime_ms, hash FROM manifest WHERE bundle = ${bundle} ORDER BY path`), (rows): ReadonlyArray<ManifestFile> =>
    rows.map((v) => ({ path: v[0] as string, size: v[1] as number, mtimeMs: v[2] as number, ...(v[3] === null ? {} : { hash: v[3] as string }) })))

/**
 * The manifest rows to upsert and the paths to delete for `files` over the
 * stored rows `before`. Both lists usually come in the same order (the walk's
 * and the manifest's, by path), so each file is first compared with the row
 * at its own position; a map is built only when a position does not match.
 */
export const manifestChanges = (bundle: string, files: ReadonlyArray<ManifestFile>, before: ReadonlyArray<ManifestFile>) => {
  const changed: Array<ReadonlyArray<Value>> = []
  let byPath: Map<string, ManifestFile> | undefined
  const matched = new Set<string>()
  let inPlace = 0
  files.forEach((f, i) => {
    let row = before[i]
    if (row !== undefined && row.path === f.path) inPlace++
    else {
      byPath ??= new Map(before.map((b) => [b.path, b] as const))
      row = byPath.get(f.path)
      if (row !== undefined) matched.add(f.path)
    }
    if (row === undefined || row.size !== f.size || row.mtimeMs !== f.mtimeMs || (row.hash ?? null) !== (f.hash ?? null)) changed.push([bundle, f.path, f.size, f.mtimeMs, f.hash ?? null])
  })
  // Rows no file named: every stored row was matched in place or by path unless some were not.
  const gone = inPlace + matched.size === before.length ? [] : before.filter((b, i) => !(files[i]?.path === b.path || matched.has(b.path))).map((b) => b.path)
  return { changed, gone }
}

/** The meta key of a bundle's walk findings by severity (BundleManifest.walkDiagnostics). */
const walkCountsKey = (bundle: string): string => `walk-findings\u0000${bundle}`

/** Moves a bundle's recorded walk findings to its new name (`to`), or drops them (no `to`) with the bundle. */
export const moveWalkCounts = (db: SqlDriver, from: string, to?: string) =>
  Effect.zipRight(
    db.run(sql`DELETE FROM meta WHERE key = ${walkCountsKey(to ?? from)}`),
    to === undefined ? Effect.void : db.run(sql`UPDATE meta SET key = ${walkCountsKey(to)} WHERE key = ${walkCountsKey(from)}`)
  )

/** The walk findings recorded with index run `indexedAt` of a bundle, or undefined when that run recorded none. */
export const walkCountsOf = (db: SqlDriver, bundle: string, indexedAt: string) =>
  Effect.map(db.rows<{ value: string }>(sql`SELECT value FROM meta WHERE key = ${walkCountsKey(bundle)}`), (rows): DiagnosticCounts | undefined => {
    const value = rows[0]?.value
    if (value === undefined) return undefined
    const recorded = JSON.parse(value) as { readonly indexedAt?: unknown; readonly counts?: DiagnosticCounts }
    return recorded.indexedAt === indexedAt ? recorded.counts : undefined
  })

/**
 * Records the item count and what this run saw of a bundle, and clears its
 * stale mark. `known`: the bundle's stored manifest rows when the caller has
 * them as they stand in this transaction (a write's refresh read them for
 * its comparison), so 20,000 rows are not read again.
 */
export const writeManifest = (db: SqlDriver, bundle: string, manifest: ManifestInput | undefined, known?: ReadonlyArray<ManifestFile>) =>
  Effect.gen(function* () {
    yield* countItems(db, bundle)
    yield* db.run(sql`UPDATE bundles SET stale_reason = NULL WHERE name = ${bundle}`)
    if (manifest === undefined) return
    const counts = manifest.diagnostics
    const writable = manifest.writable === undefined ? null : manifest.writable ? 1 : 0
    yield* db.run(sql`UPDATE bundles SET adapter = ${manifest.adapter.id}, adapter_version = ${manifest.adapter.version}, indexed_at = ${manifest.indexedAt},
      writable = ${writable}, root = ${manifest.root ?? null}, errors = ${counts?.error ?? null}, warnings = ${counts?.warning ?? null}, infos = ${counts?.info ?? null}
      WHERE name = ${bundle}`)
    // The walk's share, stamped with this run: read back only while the bundle's indexed_at is this run's.
    if (manifest.walkDiagnostics === undefined) yield* db.run(sql`DELETE FROM meta WHERE key = ${walkCountsKey(bundle)}`)
    else {
      const value = JSON.stringify({ indexedAt: manifest.indexedAt, counts: manifest.walkDiagnostics })
      yield* db.run(sql`INSERT INTO meta (key, value) VALUES (${walkCountsKey(bundle)}, ${value}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`)
    }
    // Only the rows that differ are written: a write's refresh of a 20,000-file bundle changes one or two (decision 0022).
    const { changed, gone } = manifestChanges(bundle, manifest.files, known ?? (yield* storedManifest(db, bundle)))
    for (let at = 0; at < gone.length; at += DELETE_CHUNK) {
      yield* db.run(sql`DELETE FROM manifest WHERE bundle = ${bundle} AND path IN ${inList(gone.slice(at, at + DELETE_CHUNK))}`)
    }
    yield* insertRows(db, "manifest", ["bundle", "path", "size", "mtime_ms", "hash"], changed, "ON CONFLICT (bundle, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, hash = excluded.hash")
  })

/** Paths per DELETE of vanished manifest rows (SQLite binds at most 32,766 parameters). */
const DELETE_CHUNK = 500
