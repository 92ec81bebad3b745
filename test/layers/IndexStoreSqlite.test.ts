import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { IndexStoreConnectionLayer } from "../../src/layers/sqlite/IndexStoreConnection.js"
import { makeIndexStore } from "../../src/layers/sqlite/IndexStoreSqlite.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { indexDoc, indexStoreContract } from "../services/IndexStore.contract.js"
import { tempDir } from "./tempDir.js"
import { readRows } from "../support/readDatabase.js"

const indexInTempFile = Layer.scoped(IndexStore, Effect.flatMap(tempDir("index"), (dir) => makeIndexStore(path.join(dir, "index.db"))))

indexStoreContract("sqlite file", indexInTempFile)
indexStoreContract("sqlite :memory:", Layer.scoped(IndexStore, makeIndexStore(":memory:")))

/** The search fast path's layer: plain better-sqlite3 connections to an index.db the full layer created and migrated. */
const indexOnConnections = Layer.unwrapScoped(
  Effect.gen(function* () {
    const file = path.join(yield* tempDir("index-connection"), "index.db")
    yield* Effect.scoped(Effect.flatMap(makeIndexStore(file), (store) => store.init))
    return IndexStoreConnectionLayer(file, { leaseFile: path.join(path.dirname(file), "index.lock") })
  })
)
indexStoreContract("sqlite file, plain connections (search fast path)", indexOnConnections)

/** Reads index.db with a connection of its own, as another process would. */
const query = readRows

const rowIds = (file: string): Record<string, number> =>
  Object.fromEntries(query<{ ref: string; id: number }>(file, "SELECT ref, id FROM documents ORDER BY ref").map((row) => [row.ref, row.id]))

describe("IndexStoreSqlite", () => {
  it.scoped("row ids stay stable across an unchanged re-persist and an update (R-IDX-3)", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("index-ids"), "index.db")
      const store = yield* makeIndexStore(file)
      const docs = ["a", "b", "c"].map((id) => indexDoc("notes", id, { content: `text of ${id}` }))
      yield* store.persist("notes", docs)
      const before = rowIds(file)
      expect(Object.keys(before)).toEqual(["notes//a", "notes//b", "notes//c"])

      yield* store.persist("notes", docs)
      expect(rowIds(file)).toEqual(before)

      const summary = yield* store.persist("notes", [
        docs[0]!,
        indexDoc("notes", "b", { content: "rewritten", hash: "sha256-b2" }),
        indexDoc("notes", "d")
      ])
      expect(summary).toEqual({ bundle: "notes", added: 1, updated: 1, removed: 1, unchanged: 1 })
      const after = rowIds(file)
      expect(after["notes//a"]).toBe(before["notes//a"])
      expect(after["notes//b"]).toBe(before["notes//b"])
      expect(after["notes//c"]).toBeUndefined()
      // A deleted row id is never handed out again.
      expect(Object.values(before)).not.toContain(after["notes//d"])
    }))

  it.scoped("full-text, link and outline rows follow the documents: none is left after updates and removals", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("index-fts"), "index.db")
      const store = yield* makeIndexStore(file)
      const withLinks = (id: string, fields = {}, bundle = "notes") =>
        indexDoc(bundle, id, { links: ["notes//x", "notes//y"], outline: [{ depth: 1, text: "Title", slug: "title" }, { depth: 2, text: "Part", slug: "part" }], ...fields })
      yield* store.persist("notes", ["a", "b", "c"].map((id) => withLinks(id)))
      yield* store.persist("notes", [withLinks("a", { content: "new", links: ["notes//z"] })])
      yield* store.persist("team", [withLinks("x", {}, "team")])
      yield* store.renameBundle("team", "crew")
      yield* store.removeBundle("crew")

      const documents = query<{ id: number }>(file, "SELECT id FROM documents ORDER BY id")
      expect(documents).toHaveLength(1)
      expect(query(file, "SELECT rowid AS id FROM documents_fts ORDER BY rowid")).toEqual(documents)
      expect(query(file, "SELECT rowid AS id FROM documents_trigram ORDER BY rowid")).toEqual(documents)
      expect(query(file, "SELECT id FROM document_json ORDER BY id")).toEqual(documents)
      expect(query(file, "SELECT document_id AS id, target FROM links")).toEqual([{ id: documents[0]!.id, target: "notes//z" }])
      expect(query(file, "SELECT document_id AS id, position, text FROM outline ORDER BY position")).toEqual([
        { id: documents[0]!.id, position: 0, text: "Title" },
        { id: documents[0]!.id, position: 1, text: "Part" }
      ])
      expect(query(file, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }])
    }))

  it.scoped("a bundle's recorded walk findings follow a rename and go with a removal", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("index-walk-counts"), "index.db")
      const store = yield* makeIndexStore(file)
      const walkDiagnostics = { error: 0, warning: 2, info: 1 }
      yield* store.persist("team", [indexDoc("team", "a")], { adapter: { id: "okf", version: "1" }, indexedAt: "t1", files: [], walkDiagnostics })
      const keys = () => query<{ key: string }>(file, "SELECT key FROM meta WHERE key LIKE 'walk-findings%' ORDER BY key").map((row) => row.key.replace("\u0000", "/"))
      expect(keys()).toEqual(["walk-findings/team"])
      yield* store.renameBundle("team", "crew")
      expect(keys()).toEqual(["walk-findings/crew"])
      expect((yield* store.manifest("crew"))?.walkDiagnostics).toEqual(walkDiagnostics)
      yield* store.removeBundle("crew")
      expect(keys()).toEqual([])
    }))

  it.scoped("query-time signals are columns; a short supersededBy is stored fully qualified", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("index-columns"), "index.db")
      const store = yield* makeIndexStore(file)
      yield* store.persist("notes", [indexDoc("notes", "old", { type: "fact", quality: "curated", beliefState: "superseded", supersededBy: "new", status: "active", pinned: true, scope: { project: "web" } })])
      expect(query(file, "SELECT type, quality, belief_state, superseded_by, status, pinned, scope FROM documents")).toEqual([
        { type: "fact", quality: "curated", belief_state: "superseded", superseded_by: "notes//new", status: "active", pinned: 1, scope: '{"project":"web"}' }
      ])
    }))

  it.scoped("indexing the same documents into two fresh files yields identical rows (R-IDX-4)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("index-determinism")
      const docs = ["b", "a", "c"].map((id) => indexDoc("notes", id, { content: `body ${id}`, links: ["notes//a"] }))
      const dump = (file: string) => ["documents", "document_json", "links", "outline", "manifest"].map((table) => query(file, `SELECT * FROM ${table} ORDER BY 1, 2`))
      const files = ["one.db", "two.db"].map((name) => path.join(dir, name))
      for (const file of files) {
        yield* Effect.scoped(Effect.flatMap(makeIndexStore(file), (store) => store.persist("notes", docs, { adapter: { id: "okf", version: "1" }, indexedAt: "t", files: [] })))
      }
      expect(dump(files[1]!)).toEqual(dump(files[0]!))
    }))

  it.scoped("readers see the last committed state while a writer holds the write lock (R-IDX-6)", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("index-wal"), "index.db")
      const store = yield* makeIndexStore(file)
      yield* store.persist("notes", [indexDoc("notes", "a", { content: "lemur" }), indexDoc("notes", "b")])
      const writer = new Database(file)
      try {
        writer.exec("BEGIN IMMEDIATE; DELETE FROM documents WHERE ref = 'notes//b';")
        expect((yield* store.counts)["notes"]).toBe(2)
        expect(yield* store.has("notes", "b")).toBe(true)
      } finally {
        writer.exec("ROLLBACK")
        writer.close()
      }
    }))

  it.live("the index lease is a file under the locks directory, shared by every store on the workspace", () =>
    Effect.scoped(Effect.gen(function* () {
      const dir = yield* tempDir("index-lease")
      const leaseFile = path.join(dir, "locks", "index.lock")
      const one = yield* makeIndexStore(path.join(dir, "index.db"), { leaseFile })
      const two = yield* makeIndexStore(path.join(dir, "index.db"), { leaseFile })
      const held = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const order: Array<string> = []
      const first = yield* Effect.fork(one.withWriteLease(Effect.gen(function* () {
        order.push("one")
        expect(fs.existsSync(leaseFile)).toBe(true)
        yield* Deferred.succeed(held, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(held)
      const second = yield* Effect.fork(two.withWriteLease(Effect.sync(() => order.push("two"))))
      yield* Effect.sleep("100 millis")
      expect(order).toEqual(["one"])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      expect(order).toEqual(["one", "two"])
      expect(fs.existsSync(leaseFile)).toBe(false)
    })))

  it.scoped("deleting index.db is safe: the next open starts an empty, migrated index (R-WS-2)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("index-fresh")
      const file = path.join(dir, "index.db")
      yield* Effect.scoped(Effect.flatMap(makeIndexStore(file), (store) => Effect.zipRight(store.persist("notes", [indexDoc("notes", "a")]), store.recordIndexRun("t"))))
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true })

      const store = yield* makeIndexStore(file)
      expect(yield* store.init).toEqual({ path: file, integrity: "ok", migrations: ["0001_index", "0002_item_inputs", "0003_bundle_root", "0004_search_signals", "0005_embeddings", "0006_project_rules"] })
      expect(yield* store.counts).toEqual({})
      expect(yield* store.lastIndexed).toBeUndefined()
      expect(yield* store.persist("notes", [indexDoc("notes", "a")])).toMatchObject({ added: 1 })
    }))
})
