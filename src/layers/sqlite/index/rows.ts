import { hash } from "node:crypto"
import type { IndexDocument } from "../../../domain/IndexDocument.js"
import { qualifyRef, searchFields, TRIGRAM_CONTENT_CHARS } from "../../../domain/Search.js"
import { itemDiversity, itemWords, saturateField, type ItemWords } from "../../../domain/TextSignals.js"
import type { IndexedItem } from "../../../services/IndexStore.js"

/** Lists stored in one text column; tags never contain a newline (domain/Tag.ts uniqueTags). */
const SEPARATOR = "\n"
const joinList = (values: ReadonlyArray<string> | undefined): string => (values ?? []).join(SEPARATOR)
const splitList = (text: string): ReadonlyArray<string> => (text === "" ? [] : text.split(SEPARATOR))

/**
 * The words documentColumns tokenized for a document's diversity, reused by
 * fullTextRows for its saturated fields (the same document object, moments
 * later in the same batch): the body is tokenized once, not twice.
 */
const wordsOfDocument = new WeakMap<IndexDocument, ItemWords>()

/** A document as the columns of `documents` (without the row id and its inputs) and its JSON for `document_json`. */
export const documentColumns = (doc: IndexDocument) => {
  const json = JSON.stringify(doc)
  const text = { name: doc.name, description: doc.description ?? "", content: doc.content ?? "" }
  const words = itemWords(text)
  wordsOfDocument.set(doc, words)
  const columns = {
    ref: doc.ref,
    bundle: doc.bundle,
    concept_id: doc.conceptId,
    adapter: doc.adapter,
    type: doc.type ?? null,
    name: doc.name,
    description: doc.description ?? null,
    tags: joinList(doc.tags),
    aliases: joinList(doc.aliases),
    hints: joinList(doc.hints?.map((h) => h.replaceAll(SEPARATOR, " "))),
    quality: doc.quality ?? null,
    belief_state: doc.beliefState ?? null,
    superseded_by: doc.supersededBy === undefined ? null : qualifyRef(doc.bundle, doc.supersededBy),
    status: doc.status ?? null,
    stale_after: doc.staleAfter ?? null,
    pinned: doc.pinned === true ? 1 : 0,
    scope: doc.scope === undefined ? null : JSON.stringify(doc.scope),
    path: doc.path,
    hash: doc.hash,
    bytes: doc.bytes,
    digest: hash("sha1", json, "base64"),
    diversity: itemDiversity(text, words)
  }
  return { columns, json }
}
export type DocumentColumns = ReturnType<typeof documentColumns>["columns"]

/** The rows of the two full-text tables for a document stored under `id`. */
export const fullTextRows = (id: number, doc: IndexDocument) => {
  const f = searchFields(doc)
  // searchFields passes name, description and content through as they are, so documentColumns' words are theirs.
  const w = wordsOfDocument.get(doc)
  wordsOfDocument.delete(doc)
  return {
    // Repeats past the cap are left out of the words index: term-frequency saturation per field (issue 25).
    words: {
      rowid: id,
      name: saturateField(f.name, w?.name),
      description: saturateField(f.description, w?.description),
      tags: saturateField(f.tags),
      hints: saturateField(f.hints),
      content: saturateField(f.content, w?.content)
    },
    trigram: { rowid: id, name: f.name, description: f.description, tags: f.tags, content: f.content.slice(0, TRIGRAM_CONTENT_CHARS) }
  }
}

/**
 * The ref a row's `superseded_by` names: the ref itself when an item has it,
 * else (project rules say `superseded_by: "07"`, a rule id) the project rule
 * of the same bundle whose id is that (its first hint), else as written.
 * Evaluated only for the few rows with a successor.
 */
export const successorOf = (d: string): string => `CASE WHEN ${d}.superseded_by IS NULL OR EXISTS (SELECT 1 FROM documents x WHERE x.ref = ${d}.superseded_by)
  THEN ${d}.superseded_by ELSE coalesce((SELECT r.ref FROM documents r WHERE r.bundle = ${d}.bundle AND r.adapter = 'project' AND r.type = 'rule'
    AND (r.hints = substr(${d}.superseded_by, length(${d}.bundle) + 3) OR substr(r.hints, 1, length(${d}.superseded_by) - length(${d}.bundle) - 1) = substr(${d}.superseded_by, length(${d}.bundle) + 3) || char(10))
    ORDER BY r.ref LIMIT 1), ${d}.superseded_by) END`

/** The columns search reads, aliased to IndexedItem's names. */
export const ITEM_COLUMNS = `d.ref AS ref, d.bundle AS bundle, d.concept_id AS conceptId, d.adapter AS adapter, d.type AS type, d.name AS name,
  d.description AS description, d.tags AS tags, d.aliases AS aliases, d.hints AS hints, d.quality AS quality, d.belief_state AS beliefState,
  ${successorOf("d")} AS supersededBy, d.status AS status, d.stale_after AS staleAfter, d.pinned AS pinned, d.path AS path, d.hash AS hash,
  d.bytes AS bytes, t.tokens AS tokens, f.utility AS utility, f.updated_at AS utilityAt, b.writable AS editable, d.diversity AS diversity`

/** The joins ITEM_COLUMNS needs: cached token counts by content hash, ranking features by ref, the bundle's writability. */
export const ITEM_JOINS = "LEFT JOIN token_counts t ON t.hash = d.hash LEFT JOIN ranking_features f ON f.ref = d.ref LEFT JOIN bundles b ON b.name = d.bundle"

export interface ItemRow {
  readonly ref: string
  readonly bundle: string
  readonly conceptId: string
  readonly adapter: string
  readonly type: string | null
  readonly name: string
  readonly description: string | null
  readonly tags: string
  readonly aliases: string
  readonly hints: string
  readonly quality: string | null
  readonly beliefState: string | null
  readonly supersededBy: string | null
  readonly status: string | null
  readonly staleAfter: string | null
  readonly pinned: number
  readonly path: string
  readonly hash: string
  readonly bytes: number
  readonly tokens: number | null
  readonly utility: number | null
  readonly utilityAt: string | null
  readonly editable: number | null
  readonly diversity: number | null
}

const opt = <A>(value: A | null): A | undefined => (value === null ? undefined : value)

export const itemFromRow = (row: ItemRow): IndexedItem => ({
  ref: row.ref,
  bundle: row.bundle,
  conceptId: row.conceptId,
  adapter: row.adapter,
  type: opt(row.type),
  name: row.name,
  description: opt(row.description),
  tags: splitList(row.tags),
  aliases: splitList(row.aliases),
  hints: splitList(row.hints),
  quality: opt(row.quality),
  beliefState: opt(row.beliefState),
  supersededBy: opt(row.supersededBy),
  status: opt(row.status),
  staleAfter: opt(row.staleAfter),
  pinned: row.pinned === 1,
  editable: row.editable === 1,
  path: row.path,
  hash: row.hash,
  bytes: row.bytes,
  tokens: opt(row.tokens),
  utility: row.utility === null || row.utilityAt === null ? undefined : { value: row.utility, at: row.utilityAt },
  diversity: opt(row.diversity)
})

/** Splits rows into batches that stay under SQLite's bound-parameter limit (32766). */
export const batches = <A extends object>(rows: ReadonlyArray<A>, columns: number): ReadonlyArray<ReadonlyArray<A>> => {
  const size = Math.max(1, Math.floor(30_000 / Math.max(1, columns)))
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}
