import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { makeIndexStore } from "../../src/layers/sqlite/IndexStoreSqlite.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { indexDoc, indexStoreContract } from "../services/IndexStore.contract.js"
import { tempDir } from "./tempDir.js"

const indexInTempFile = Layer.scoped(IndexStore, Effect.flatMap(tempDir("index"), (dir) => makeIndexStore(path.join(dir, "index.db"))))

indexStoreContract("sqlite file", indexInTempFile)
indexStoreContract("sqlite :memory:", Layer.scoped(IndexStore, makeIndexStore(":memory:")))

/** Reads the documents table with a connection of its own, as another process would. */
const rowIds = (file: string): Record<string, number> => {
  const db = new Database(file, { readonly: true })
  try {
    const rows = db.prepare("SELECT ref, id FROM documents ORDER BY ref").all() as Array<{ ref: string; id: number }>
    return Object.fromEntries(rows.map((row) => [row.ref, row.id]))
  } finally {
    db.close()
  }
}

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
      expect(Object.values(before)).not.toContain(after["notes//d"])
    }))

  it.scoped("the full-text rows follow the documents: no orphan is left after updates and removals", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("index-fts"), "index.db")
      const store = yield* makeIndexStore(file)
      yield* store.persist("notes", ["a", "b", "c"].map((id) => indexDoc("notes", id)))
      yield* store.persist("notes", [indexDoc("notes", "a", { content: "new" })])
      yield* store.persist("team", [indexDoc("team", "x")])
      yield* store.renameBundle("team", "crew")
      yield* store.removeBundle("crew")

      const db = new Database(file, { readonly: true })
      try {
        const documents = db.prepare("SELECT id FROM documents ORDER BY id").all()
        const fts = db.prepare("SELECT rowid AS id FROM documents_fts ORDER BY rowid").all()
        expect(fts).toEqual(documents)
        expect(documents).toHaveLength(1)
      } finally {
        db.close()
      }
    }))

  it.scoped("deleting index.db is safe: the next open starts an empty, migrated index (R-WS-2)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("index-fresh")
      const file = path.join(dir, "index.db")
      yield* Effect.scoped(Effect.flatMap(makeIndexStore(file), (store) => store.persist("notes", [indexDoc("notes", "a")])))
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true })

      const store = yield* makeIndexStore(file)
      expect(yield* store.init).toEqual({ path: file, integrity: "ok", migrations: ["0001_documents"] })
      expect(yield* store.counts).toEqual({})
      expect(yield* store.persist("notes", [indexDoc("notes", "a")])).toMatchObject({ added: 1 })
    }))
})
