import { hash } from "node:crypto"
import type { IndexDocument } from "../../../domain/IndexDocument.js"
import type { ItemInputs } from "../../../domain/ItemProjection.js"
import { documentColumns, fullTextRows, type DocumentColumns } from "./rows.js"

/**
 * Everything persist writes for one document but its row id, as plain values
 * (strings and numbers only, so a worker thread can make them and post them
 * back as a structured clone): the `documents` columns, `document_json`, the
 * full-text values in the staging table's column order, links and outline.
 * The same functions make them in-process, so the rows are the same wherever
 * they were made (docs/decisions/0054-index-build-pipeline.md).
 */
export interface PreparedRows {
  readonly columns: DocumentColumns
  readonly json: string
  readonly inputs: string | null
  readonly inputsDigest: string | null
  /** words name, description, tags, hints, content; trigram name, description, tags, content. */
  readonly fullText?: ReadonlyArray<string> | undefined
  /** Distinct link targets, in first-seen order. */
  readonly links?: ReadonlyArray<string> | undefined
  /** position, depth, text, slug. */
  readonly outline?: ReadonlyArray<readonly [number, number, string, string]> | undefined
}

/** The columns, JSON and inputs digest of a document: what persist compares with the stored row. */
export const keyRows = (doc: IndexDocument, inputs: ItemInputs | undefined): PreparedRows => {
  const { columns, json } = documentColumns(doc)
  const inputsJson = inputs === undefined ? null : JSON.stringify(inputs)
  return { columns, json, inputs: inputsJson, inputsDigest: inputsJson === null ? null : hash("sha1", inputsJson, "base64") }
}

/** The full-text, link and outline values of a document (after keyRows of the same object: its words are reused). */
export const searchValues = (doc: IndexDocument) => {
  const rows = fullTextRows(0, doc)
  const w = rows.words
  const t = rows.trigram
  return {
    fullText: [w.name, w.description, w.tags, w.hints, w.content, t.name, t.description, t.tags, t.content],
    links: [...new Set(doc.links ?? [])],
    outline: (doc.outline ?? []).map((h, position) => [position, h.depth, h.text, h.slug] as const)
  }
}

/** Every row value of a document, made at once (a projector worker's job). */
export const prepareRows = (doc: IndexDocument, inputs: ItemInputs | undefined): PreparedRows => ({ ...keyRows(doc, inputs), ...searchValues(doc) })

/**
 * Rows a worker made, by the document they were made for (the clone the main
 * thread received): persist takes them instead of making them again. Weak, so
 * a document that is never persisted (a dry run, `akm scan`) takes its rows with it.
 */
const prepared = new WeakMap<IndexDocument, PreparedRows>()

export const attachPrepared = (doc: IndexDocument, rows: PreparedRows): void => void prepared.set(doc, rows)

/** The rows attached to a document, once. */
export const takePrepared = (doc: IndexDocument): PreparedRows | undefined => {
  const rows = prepared.get(doc)
  if (rows !== undefined) prepared.delete(doc)
  return rows
}
