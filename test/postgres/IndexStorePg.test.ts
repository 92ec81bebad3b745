import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Deferred, Effect, Fiber, Layer } from "effect"
import { IndexStorePg } from "../../src/layers/postgres/IndexStorePg.js"
import { parseQuery } from "../../src/domain/Query.js"
import type { ItemFilters } from "../../src/domain/Search.js"
import { IndexStore, type CandidateSet } from "../../src/services/IndexStore.js"
import { indexDoc, indexStoreContract } from "../services/IndexStore.contract.js"
import { postgresSuites } from "./pgTestDb.js"
import { pgClient, scratchDatabase } from "./scratchDatabase.js"

/**
 * R-ARCH-5 on PostgreSQL (issue 27): the IndexStore contract suite the SQLite
 * layer passes, on a database of its own; then what only a shared server
 * adds: two stores (two servers) on one database.
 */
postgresSuites("IndexStore on PostgreSQL", (url) => {
  indexStoreContract("PostgreSQL", IndexStorePg.pipe(Layer.provide(Layer.unwrapScoped(Effect.map(scratchDatabase(url, "idx_contract"), (db) => pgClient(db.url))))))

  describe("IndexStore on PostgreSQL: two servers on one database", () => {
    const storeOn = (dbUrl: string) => Effect.map(Layer.build(IndexStorePg.pipe(Layer.provide(pgClient(dbUrl)))), Context.get(IndexStore))
    it.scopedLive("index runs serialise and a reader sees the previous complete index until a run commits (R-IDX-6)", () =>
      Effect.gen(function* () {
        const db = yield* scratchDatabase(url, "idx_servers")
        const a = yield* storeOn(db.url)
        const b = yield* storeOn(db.url)
        const bundle = "shared"
        yield* a.persist(bundle, [indexDoc(bundle, "old", { content: "gnu" })])

        const gate = yield* Deferred.make<void>()
        const inside = yield* Deferred.make<void>()
        const order: Array<string> = []
        const run = yield* Effect.fork(a.withWriteLease(Effect.gen(function* () {
          order.push("a in")
          yield* a.persist(bundle, [indexDoc(bundle, "new", { content: "gnu" })])
          yield* Deferred.succeed(inside, undefined)
          yield* Deferred.await(gate)
          order.push("a out")
        })))
        yield* Deferred.await(inside)
        // Server b reads the index as it was before a's run.
        const during = yield* b.candidates({ match: { _tag: "Substring", segments: ["gnu"] }, filters: { belief: "current", includeProposed: false, bundles: [bundle] }, limit: 10 })
        expect(during.candidates.map((c) => c.item.ref)).toEqual([`${bundle}//old`])
        expect(yield* b.has(bundle, "new")).toBe(false)
        // b's own run waits for a's.
        const second = yield* Effect.fork(b.withWriteLease(Effect.sync(() => order.push("b"))))
        yield* Effect.sleep("300 millis")
        expect(order).toEqual(["a in"])
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(run)
        yield* Fiber.join(second)
        expect(order).toEqual(["a in", "a out", "b"])
        expect(yield* b.has(bundle, "new")).toBe(true)
        expect(yield* b.has(bundle, "old")).toBe(false)
      }), { timeout: 60_000 })

    it.scopedLive("item paths are stored bundle-relative and read under the bundle's root (issue 27 item 6)", () =>
      Effect.gen(function* () {
        const db = yield* scratchDatabase(url, "idx_paths")
        const a = yield* storeOn(db.url)
        const bundle = "mounted"
        const root = "/srv/akm/bundles/mounted"
        const doc = indexDoc(bundle, "notes/a", { path: `${root}/notes/a.md`, files: ["notes/a.md"], content: "heron" })
        const manifest = { adapter: { id: "okf", version: "1" }, indexedAt: "2025-01-01T00:00:00.000Z", files: [], root }
        yield* a.persist(bundle, [doc], manifest)
        const stored = yield* Effect.scoped(Effect.flatMap(Layer.build(pgClient(db.url)), (ctx) =>
          Context.get(ctx, SqlClient.SqlClient)<{ path: string; doc: string }>`SELECT path, doc FROM idx_documents WHERE ref = ${doc.ref}`))
        expect(stored[0]?.path).toBe("notes/a.md")
        expect(JSON.parse(stored[0]!.doc).path).toBe("notes/a.md")
        expect(yield* a.resolve(doc.ref)).toEqual(doc)
        expect((yield* a.items([doc.ref], { belief: "all", includeProposed: true }))[0]?.path).toBe(doc.path)
        // Unchanged on the next run: nothing is rewritten.
        expect(yield* a.persist(bundle, [doc], manifest)).toMatchObject({ unchanged: 1, updated: 0 })
      }), { timeout: 60_000 })

    it.scopedLive("a word search reads the index's lists: the same candidates as the tsvector path, after every kind of change (decision 0041)", () =>
      Effect.gen(function* () {
        const db = yield* scratchDatabase(url, "idx_lists")
        const a = yield* storeOn(db.url)
        const b = yield* storeOn(db.url)
        const words = ["deploy", "cache", "redis", "heron", "staging", "rollback", "ledger", "kestrel"]
        const docs = (bundle: string, n: number, shift: number) =>
          Array.from({ length: n }, (_, i) =>
            indexDoc(bundle, `notes/n${i}`, {
              name: `${words[(i + shift) % words.length]} note ${i}`,
              ...(i % 3 === 0 ? { description: `about ${words[(i * 5 + shift) % words.length]}` } : {}),
              ...(i % 4 === 0 ? { tags: [words[(i + 3) % words.length]!] } : {}),
              content: Array.from({ length: 1 + (i % 7) }, (_, k) => words[(i * k + shift + 1) % words.length]).join(" ") + ` filler ${i}`,
              ...(i % 11 === 5 ? { quality: "proposed" as const } : {}),
              ...(i % 13 === 4 ? { supersededBy: `${bundle}//notes/n${i + 1}` } : {})
            }))
        yield* a.persist("one", docs("one", 60, 0))
        yield* a.persist("two", docs("two", 40, 3))
        const filters: ItemFilters = { belief: "current", includeProposed: false }
        const find = (store: typeof a, text: string, narrowed: boolean) => {
          const parsed = parseQuery(text)
          const groups = parsed._tag === "Words" ? parsed.groups : []
          return store.candidates({ match: { _tag: "Words", groups, prefix: false }, filters: narrowed ? { ...filters, bundles: ["one", "two", "three"] } : filters, limit: 50 })
        }
        const shape = (set: CandidateSet) => ({
          refs: set.candidates.map((c) => c.item.ref),
          lexical: set.candidates.map((c) => Math.round(c.lexical * 1e6)),
          matched: set.candidates.map((c) => c.matched),
          total: set.total,
          documentCount: set.documentCount,
          documentFrequency: set.documentFrequency
        })
        const same = (store: typeof a) =>
          Effect.forEach(["deploy", "cache redis", "heron staging rollback", "ledger kestrel filler", "nothing-here"], (text) =>
            Effect.gen(function* () {
              const fast = yield* find(store, text, false)
              // Every bundle named: the same filter, but it takes the tsvector path of decision 0034.
              expect(shape(fast), text).toEqual(shape(yield* find(store, text, true)))
              return fast
            }))
        const before = yield* same(a)
        expect(before[0]!.total).toBeGreaterThan(0)
        // Every list now held for this generation: the lists statement is skipped, the rows statement checks the generation.
        expect((yield* same(a)).map(shape)).toEqual(before.map(shape))
        // Another server changes the index: updated, added and removed items; this server's next search sees it.
        yield* b.persist("one", docs("one", 45, 1))
        yield* same(a)
        yield* b.removeBundle("two")
        const after = yield* same(a)
        expect(after.flatMap((set) => set.candidates.map((c) => c.item.bundle))).not.toContain("two")
        // A run rolled back leaves nothing behind, not even a generation the next run could repeat.
        yield* Effect.exit(b.withWriteLease(Effect.zipRight(b.persist("three", docs("three", 30, 2)), Effect.fail("crash"))))
        expect(shape(yield* find(a, "heron staging rollback", false))).toEqual(shape(after[2]!))
        yield* b.persist("three", docs("three", 30, 5))
        const last = yield* same(a)
        expect(last.flatMap((set) => set.candidates.map((c) => c.item.bundle))).toContain("three")
      }), { timeout: 120_000 })

    it.scopedLive("a failed index run leaves the previous index whole", () =>
      Effect.gen(function* () {
        const db = yield* scratchDatabase(url, "idx_rollback")
        const a = yield* storeOn(db.url)
        const bundle = "kept"
        yield* a.persist(bundle, [indexDoc(bundle, "one")])
        const exit = yield* Effect.exit(a.withWriteLease(Effect.zipRight(a.persist(bundle, [indexDoc(bundle, "two")]), Effect.fail("crash"))))
        expect(exit._tag).toBe("Failure")
        expect(yield* a.has(bundle, "one")).toBe(true)
        expect(yield* a.has(bundle, "two")).toBe(false)
        expect((yield* a.init).migrations).toEqual(["0001_index", "0002_search_postings"])
      }), { timeout: 60_000 })
  })
})
