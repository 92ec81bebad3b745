import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { Effect } from "effect"
import type { IndexDocument } from "../../src/domain/IndexDocument.js"
import { makeIndexStore } from "../../src/layers/sqlite/IndexStoreSqlite.js"
import { indexDoc } from "../services/IndexStore.contract.js"
import { tempDir } from "./tempDir.js"
import { readRows } from "../support/readDatabase.js"

/** Reads index.db with a connection of its own, as another process would. */
const query = readRows

/** Every row a document leaves in index.db, ids included, in a stable order. */
const rows = (file: string) => ({
  documents: query(file, "SELECT * FROM documents ORDER BY id"),
  json: query(file, "SELECT * FROM document_json ORDER BY id"),
  words: query(file, "SELECT * FROM documents_vocab ORDER BY term"),
  trigram: query(file, "SELECT rowid, * FROM documents_trigram ORDER BY rowid"),
  links: query(file, "SELECT * FROM links ORDER BY document_id, target"),
  outline: query(file, "SELECT * FROM outline ORDER BY document_id, position"),
  bundles: query(file, "SELECT name, items FROM bundles ORDER BY name")
})

/** Enough documents, links and headings that every insert takes several statements of different sizes. */
const manyDocs = (bundle: string, count: number): ReadonlyArray<IndexDocument> =>
  Array.from({ length: count }, (_, i) =>
    indexDoc(bundle, `notes/n${String(i).padStart(4, "0")}`, {
      description: `note ${i}`,
      tags: [`tag ${i % 7}`],
      content: `body of note ${i} with some words`,
      links: [`${bundle}//notes/n${(i + 1) % count}`, `${bundle}//notes/n${(i + 2) % count}`, "https://example.com"],
      outline: Array.from({ length: 1 + (i % 5) }, (_, h) => ({ depth: 2, text: `Part ${h}`, slug: `part-${h}` }))
    }))

describe("IndexStoreSqlite streamed persist", () => {
  it.scoped("rows, row ids included, are the same whether the documents arrive at once or in batches", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("index-stream")
      const docs = manyDocs("kb", 613)
      const once = path.join(dir, "once.db")
      const batched = path.join(dir, "batched.db")
      yield* Effect.scoped(Effect.flatMap(makeIndexStore(once), (store) => store.persist("kb", docs)))
      const summary = yield* Effect.scoped(Effect.flatMap(makeIndexStore(batched), (store) =>
        store.persistStreamed("kb", (sink) =>
          Effect.gen(function* () {
            for (let i = 0; i < docs.length; i += 37) yield* sink.write(docs.slice(i, i + 37))
            return { _tag: "Commit" as const, value: undefined }
          }))))
      expect(summary.summary).toEqual({ bundle: "kb", added: 613, updated: 0, removed: 0, unchanged: 0 })
      const expected = rows(once)
      expect(expected.links).toHaveLength(613 * 3)
      expect(rows(batched)).toEqual(expected)
    }))

  it.scoped("another connection sees none of a streamed persist until it commits (R-IDX-6)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("index-stream")
      const file = path.join(dir, "index.db")
      const store = yield* makeIndexStore(file)
      yield* store.persist("kb", [indexDoc("kb", "old")])
      const seenMidway: Array<number> = []
      yield* store.persistStreamed("kb", (sink) =>
        Effect.gen(function* () {
          yield* sink.write(manyDocs("kb", 100).slice(0, 50))
          seenMidway.push(query<{ n: number }>(file, "SELECT count(*) AS n FROM documents WHERE bundle = 'kb'")[0]!.n)
          yield* sink.write(manyDocs("kb", 100).slice(50))
          return { _tag: "Commit" as const, value: undefined }
        }))
      expect(seenMidway).toEqual([1])
      expect(query<{ n: number }>(file, "SELECT count(*) AS n FROM documents WHERE bundle = 'kb'")[0]!.n).toBe(100)
      expect(yield* store.has("kb", "old")).toBe(false)
    }))

  it.scoped("a failure after some batches rolls the whole bundle back: rows and manifest as before", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("index-stream")
      const file = path.join(dir, "index.db")
      const store = yield* makeIndexStore(file)
      yield* store.persist("kb", manyDocs("kb", 40), { adapter: { id: "okf", version: "1" }, indexedAt: "2025-01-01T00:00:00.000Z", files: [{ path: "a.md", size: 1, mtimeMs: 1 }] })
      const before = rows(file)
      const exit = yield* Effect.exit(store.persistStreamed("kb", (sink) =>
        Effect.gen(function* () {
          yield* sink.write(manyDocs("kb", 90).slice(0, 64).map((doc) => ({ ...doc, content: "rewritten" })))
          yield* sink.write(manyDocs("kb", 90).slice(64))
          return yield* Effect.fail("boom")
        })))
      expect(exit._tag).toBe("Failure")
      expect(rows(file)).toEqual(before)
      expect((yield* store.manifest("kb"))?.indexedAt).toBe("2025-01-01T00:00:00.000Z")
    }))

  it.scoped("full-text rows past the staging threshold reach both tables; a rolled-back session leaves none staged for the next", () =>
    Effect.gen(function* () {
      // persist.ts stages full-text rows in a temporary table and moves them into FTS5 512 at a time.
      const dir = yield* tempDir("index-stage")
      const file = path.join(dir, "index.db")
      const store = yield* makeIndexStore(file)
      const docs = manyDocs("kb", 2_500)
      const exit = yield* Effect.exit(store.persistStreamed("kb", (sink) =>
        Effect.gen(function* () {
          yield* sink.write(docs.slice(0, 1_500).map((doc) => ({ ...doc, content: "abandonedword" })))
          return yield* Effect.fail("boom")
        })))
      expect(exit._tag).toBe("Failure")
      yield* store.persistStreamed("kb", (sink) =>
        Effect.gen(function* () {
          for (let i = 0; i < docs.length; i += 100) yield* sink.write(docs.slice(i, i + 100))
          return { _tag: "Commit" as const, value: undefined }
        }))
      const count = (sql: string) => query<{ n: number }>(file, sql)[0]!.n
      expect(count("SELECT count(*) AS n FROM documents_trigram")).toBe(2_500)
      expect(count("SELECT count(*) AS n FROM documents_trigram t JOIN documents d ON d.id = t.rowid")).toBe(2_500)
      expect(count("SELECT doc AS n FROM documents_vocab WHERE term = 'bodi'")).toBe(2_500)
      expect(query(file, "SELECT term FROM documents_vocab WHERE term LIKE 'abandon%'")).toEqual([])
      expect(count("SELECT count(*) AS n FROM documents_trigram WHERE documents_trigram MATCH 'of note 2499'")).toBe(1)
    }))

  it.scoped("a later manifest replaces the earlier one exactly, though only the rows that differ are written", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("index-manifest")
      const file = path.join(dir, "index.db")
      const store = yield* makeIndexStore(file)
      const manifest = (indexedAt: string, files: ReadonlyArray<{ path: string; size: number; mtimeMs: number; hash?: string }>) =>
        ({ adapter: { id: "akm", version: "1" }, indexedAt, files })
      const first = Array.from({ length: 1200 }, (_, i) => ({ path: `notes/n${String(i).padStart(4, "0")}.md`, size: i, mtimeMs: 1_700_000_000_000.5 + i, hash: `h${i}` }))
      yield* store.persist("kb", [indexDoc("kb", "one")], manifest("2025-01-01T00:00:00.000Z", first))
      // One file changed (size), one lost its hash, 600 removed, one added; the rest as they were.
      const second = [
        ...first.slice(0, 599),
        { ...first[599]!, size: 5 },
        { path: first[600]!.path, size: first[600]!.size, mtimeMs: first[600]!.mtimeMs },
        { path: "notes/zz.md", size: 1, mtimeMs: 2 }
      ]
      yield* store.persist("kb", [indexDoc("kb", "one")], manifest("2025-01-02T00:00:00.000Z", second))
      expect((yield* store.manifest("kb"))?.files).toEqual([...second].sort((a, b) => (a.path < b.path ? -1 : 1)))
      expect(query(file, "SELECT count(*) AS n FROM manifest")).toEqual([{ n: second.length }])
    }))

  it.scoped("stored item inputs are read again once a persist wrote the bundle's rows", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("index-inputs")
      const store = yield* makeIndexStore(path.join(dir, "index.db"))
      const inputs = (tag: string) => ({ plan: { conceptId: "one", files: [tag] } }) as never
      const commit = (at: string, tag: string) =>
        store.persistStreamed("kb", (sink) =>
          Effect.as(sink.write([indexDoc("kb", "one", { description: tag })], [inputs(tag)]), {
            _tag: "Commit" as const,
            value: undefined,
            manifest: { adapter: { id: "akm", version: "1" }, indexedAt: at, files: [] }
          }))
      yield* commit("2025-01-01T00:00:00.000Z", "a.md")
      expect((yield* store.itemInputs("kb")).get("kb//one")).toEqual(inputs("a.md"))
      expect(yield* store.itemInputs("kb")).toBe(yield* store.itemInputs("kb"))
      yield* commit("2025-01-02T00:00:00.000Z", "b.md")
      expect((yield* store.itemInputs("kb")).get("kb//one")).toEqual(inputs("b.md"))
    }))
})
