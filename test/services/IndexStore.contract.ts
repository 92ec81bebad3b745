import { expect, layer as layer_ } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Option, type Layer } from "effect"
import type { IndexDocument } from "../../src/domain/IndexDocument.js"
import type { ItemInputs } from "../../src/domain/ItemProjection.js"
import { parseQuery } from "../../src/domain/Query.js"
import type { ItemFilters } from "../../src/domain/Search.js"
import { IndexStore, type CandidateSet, type IndexedItem, type ManifestInput } from "../../src/services/IndexStore.js"

/**
 * R-ARCH-5: every IndexStore layer passes this suite. The layer is shared by
 * all cases, so each case works in bundles of its own and searches only them.
 */
let bundleCounter = 0
const freshBundle = (label: string): string => `${label}-${++bundleCounter}`

export const indexDoc = (bundle: string, conceptId: string, fields: Partial<IndexDocument> = {}): IndexDocument => ({
  ref: `${bundle}//${conceptId}`,
  bundle,
  conceptId,
  adapter: "okf",
  path: `${conceptId}.md`,
  files: [`${conceptId}.md`],
  hash: `sha256-${conceptId}`,
  name: conceptId,
  bytes: 120,
  ...fields
})

/** A document with every optional field set, so a lossy round trip shows. */
const richDoc = (bundle: string): IndexDocument =>
  indexDoc(bundle, "guides/http-caching", {
    type: "guide",
    name: "HTTP caching",
    description: "How caches validate responses",
    tags: ["http", "caching"],
    hints: ["use when a response is stale"],
    content: "# HTTP caching\n\nETags and Last-Modified.\n",
    aliases: ["caching"],
    quality: "curated",
    beliefState: "accepted",
    supersededBy: `${bundle}//guides/http-caching-v2`,
    scope: { project: "web" },
    pinned: true,
    updated: "2025-01-02",
    status: "active",
    staleAfter: "2026-01-01",
    links: [`${bundle}//guides/etag`],
    outline: [{ depth: 1, text: "HTTP caching", slug: "http-caching" }],
    tokens: 30,
    extra: { source: "test", nested: [1, 2] }
  })

/** A manifest to record with a persist: a later failed persist must leave it as it was. */
const streamManifest: ManifestInput = {
  adapter: { id: "okf", version: "1" },
  indexedAt: "2025-01-01T00:00:00.000Z",
  files: [{ path: "a.md", size: 10, mtimeMs: 1_700_000_000_000, hash: "sha256-a" }, { path: "b.md", size: 20, mtimeMs: 1_700_000_000_000 }],
  writable: true,
  diagnostics: { error: 0, warning: 1, info: 0 }
}

const ftsSyntax = ["c++", "what's", "\"quoted", "AND OR NOT", "*", "NEAR(a b)", "name:caching", "-minus", "a AND", "(", "^start", "\"a\" \"", "{name}: x"]

const allBelief: ItemFilters = { belief: "all", includeProposed: true }
const current = (bundles: ReadonlyArray<string>): ItemFilters => ({ belief: "current", includeProposed: false, bundles })

/** Candidates for a typed query (as the search program parses it), within some bundles. */
const findIn = (bundles: ReadonlyArray<string>, text: string, options: { readonly prefix?: boolean; readonly limit?: number; readonly filters?: Partial<ItemFilters> } = {}) =>
  Effect.gen(function* () {
    const store = yield* IndexStore
    const parsed = parseQuery(text)
    const match =
      parsed._tag === "Substring"
        ? { _tag: "Substring" as const, segments: parsed.segments }
        : { _tag: "Words" as const, groups: parsed._tag === "Words" ? parsed.groups : [], prefix: options.prefix ?? false }
    return yield* store.candidates({ match, filters: { ...current(bundles), ...options.filters }, limit: options.limit ?? 50 })
  })

const refs = (set: CandidateSet): ReadonlyArray<string> => set.candidates.map((c) => c.item.ref)

export const indexStoreContract = (name: string, layer: Layer.Layer<IndexStore, unknown>) =>
  layer_(layer)(`IndexStore contract: ${name}`, (it) => {
    it.effect("init reports a healthy index", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const status = yield* store.init
        expect(status.integrity).toBe("ok")
        expect(yield* store.init).toEqual(status)
      }))

    it.effect("persist adds, updates and removes by ref and reports what it did", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("diff")
        const first = yield* store.persist(bundle, [indexDoc(bundle, "a"), indexDoc(bundle, "b"), indexDoc(bundle, "c")])
        expect(first).toEqual({ bundle, added: 3, updated: 0, removed: 0, unchanged: 0 })

        const next = [indexDoc(bundle, "a"), indexDoc(bundle, "b", { hash: "sha256-b2", content: "changed" }), indexDoc(bundle, "d")]
        expect(yield* store.diff(bundle, next)).toEqual({ bundle, added: 1, updated: 1, removed: 1, unchanged: 1 })
        // diff wrote nothing
        expect(yield* store.has(bundle, "c")).toBe(true)
        expect(yield* store.persist(bundle, next)).toEqual({ bundle, added: 1, updated: 1, removed: 1, unchanged: 1 })
        expect(yield* store.resolve(`${bundle}//c`)).toBeUndefined()
        expect((yield* store.resolve(`${bundle}//b`))?.content).toBe("changed")
        expect(yield* store.has(bundle, "d")).toBe(true)
        expect((yield* store.counts)[bundle]).toBe(3)
      }))

    it.effect("a re-persisted unchanged bundle reports every document unchanged", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("same")
        const docs = [richDoc(bundle), indexDoc(bundle, "x"), indexDoc(bundle, "y")]
        yield* store.persist(bundle, docs)
        expect(yield* store.persist(bundle, docs)).toEqual({ bundle, added: 0, updated: 0, removed: 0, unchanged: 3 })
      }))

    it.effect("persisting one bundle never touches another", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const mine = freshBundle("mine")
        const other = freshBundle("other")
        const otherDocs = [indexDoc(other, "shared"), indexDoc(other, "only-other")]
        yield* store.persist(other, otherDocs)

        // Same concept ids in both bundles, then an empty persist that removes all of mine.
        yield* store.persist(mine, [indexDoc(mine, "shared")])
        expect(yield* store.persist(mine, [])).toEqual({ bundle: mine, added: 0, updated: 0, removed: 1, unchanged: 0 })

        expect(yield* store.resolve(`${other}//shared`)).toEqual(otherDocs[0])
        expect(yield* store.resolve(`${other}//only-other`)).toEqual(otherDocs[1])
        const counts = yield* store.counts
        expect(counts[other]).toBe(2)
        expect(counts[mine]).toBeUndefined()
      }))

    it.effect("a document of another bundle is a programming error", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const exit = yield* Effect.exit(store.persist(freshBundle("mine"), [indexDoc("someone-else", "a")]))
        expect(exit._tag).toBe("Failure")
      }))

    it.effect("persistStreamed: documents arriving in several batches persist exactly as given at once (spec 10 §2)", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const whole = freshBundle("whole")
        const streamed = freshBundle("streamed")
        const docsOf = (bundle: string): ReadonlyArray<IndexDocument> => [
          richDoc(bundle),
          ...Array.from({ length: 9 }, (_, i) =>
            indexDoc(bundle, `notes/n${i}`, {
              content: `note ${i} about caching`,
              links: [`${bundle}//notes/n${(i + 1) % 9}`],
              outline: [{ depth: 1, text: `Note ${i}`, slug: `note-${i}` }, { depth: 2, text: "Details", slug: "details" }]
            }))
        ]
        const wholeSummary = yield* store.persist(whole, docsOf(whole), streamManifest)
        const docs = docsOf(streamed)
        const result = yield* store.persistStreamed(streamed, (sink) =>
          Effect.gen(function* () {
            for (let i = 0; i < docs.length; i += 3) yield* sink.write(docs.slice(i, i + 3))
            return { _tag: "Commit" as const, value: "scanned", manifest: streamManifest }
          }))
        expect(result).toEqual({ summary: { ...wholeSummary, bundle: streamed }, value: "scanned" })
        for (const doc of docs) expect(yield* store.resolve(doc.ref)).toEqual(doc)
        expect((yield* store.counts)[streamed]).toBe(docs.length)
        expect(yield* store.manifest(streamed)).toEqual({ ...(yield* store.manifest(whole)), bundle: streamed })
        expect(refs(yield* findIn([streamed], "caching"))).toEqual(refs(yield* findIn([whole], "caching")).map((ref) => ref.replace(whole, streamed)))

        // Unchanged documents stay unchanged; a ref no batch names goes on Commit; a ref given twice keeps the first.
        const again = yield* store.persistStreamed(streamed, (sink) =>
          Effect.as(Effect.zipRight(sink.write(docs.slice(1, 5)), sink.write([...docs.slice(5), indexDoc(streamed, "notes/n1", { content: "ignored" })])), { _tag: "Commit" as const, value: 0 }))
        expect(again.summary).toEqual({ bundle: streamed, added: 0, updated: 0, removed: 1, unchanged: 9 })
        expect(yield* store.has(streamed, "guides/http-caching")).toBe(false)
        expect((yield* store.resolve(`${streamed}//notes/n1`))?.content).toBe("note 1 about caching")
      }))

    it.effect("persistStreamed: item inputs are stored with their documents; kept refs stay unchanged and are not deleted (R-IDX-2)", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("inputs")
        const docs = [indexDoc(bundle, "a", { content: "alpha" }), indexDoc(bundle, "b", { content: "beta" }), indexDoc(bundle, "c")]
        const inputsOf = (conceptId: string, extra: Partial<ItemInputs> = {}): ItemInputs => ({
          plan: { conceptId, files: [`${conceptId}.md`] },
          read: [`${conceptId}.md`],
          listing: false,
          diagnostics: [{ code: "missing-description", severity: "info", path: `${conceptId}.md`, message: "no description", ref: `${bundle}//${conceptId}` }],
          lint: JSON.stringify({ name: conceptId, links: [] }),
          ...extra
        })
        yield* store.persistStreamed(bundle, (sink) =>
          Effect.as(Effect.zipRight(sink.write(docs.slice(0, 2), [inputsOf("a"), inputsOf("b")]), sink.write(docs.slice(2))), { _tag: "Commit" as const, value: 0, manifest: streamManifest }))
        // Stored without inputs (c): absent, so a later scan projects it.
        expect(yield* store.itemInputs(bundle)).toEqual(new Map([[`${bundle}//a`, inputsOf("a")], [`${bundle}//b`, inputsOf("b")]]))

        // Keep a unread, rewrite b with new inputs, c unchanged with inputs now given; nothing vanishes.
        const kept = yield* store.persistStreamed(bundle, (sink) =>
          Effect.as(Effect.zipRight(sink.keep([`${bundle}//a`, `${bundle}//nowhere`]), sink.write([docs[1]!, docs[2]!], [inputsOf("b", { read: ["b.md", "x.md"] }), inputsOf("c")])), { _tag: "Commit" as const, value: 0 }))
        expect(kept.summary).toEqual({ bundle, added: 0, updated: 0, removed: 0, unchanged: 3 })
        expect(yield* store.resolve(`${bundle}//a`)).toEqual(docs[0])
        expect(yield* store.itemInputs(bundle)).toEqual(new Map([
          [`${bundle}//a`, inputsOf("a")],
          [`${bundle}//b`, inputsOf("b", { read: ["b.md", "x.md"] })],
          [`${bundle}//c`, inputsOf("c")]
        ]))
        expect(refs(yield* findIn([bundle], "alpha"))).toEqual([`${bundle}//a`])

        // A ref neither written nor kept vanishes with its inputs.
        const dropped = yield* store.persistStreamed(bundle, (sink) => Effect.as(sink.keep([`${bundle}//a`, `${bundle}//b`]), { _tag: "Commit" as const, value: 0 }))
        expect(dropped.summary).toEqual({ bundle, added: 0, updated: 0, removed: 1, unchanged: 2 })
        expect([...(yield* store.itemInputs(bundle)).keys()]).toEqual([`${bundle}//a`, `${bundle}//b`])

        // Renaming drops stored inputs (they name the old refs): the next scan projects every item again.
        const renamed = freshBundle("inputs-renamed")
        yield* store.renameBundle(bundle, renamed)
        expect((yield* store.itemInputs(renamed)).size).toBe(0)
        expect(yield* store.has(renamed, "a")).toBe(true)
      }))

    it.effect("itemInputs: every stored item's inputs, however many statements a store reads them in (decision 0057)", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("inputs-many")
        // More than one page of the SQLite store's paged read (1,000 rows), ids whose order is not their insertion order.
        const ids = Array.from({ length: 2_345 }, (_, i) => `k/${String((i * 7919) % 2_345).padStart(4, "0")}`)
        const inputsOf = (conceptId: string): ItemInputs => ({ plan: { conceptId, files: [`${conceptId}.md`] }, read: [`${conceptId}.md`], listing: false, diagnostics: [] })
        yield* store.persistStreamed(bundle, (sink) =>
          Effect.as(sink.write(ids.map((id) => indexDoc(bundle, id)), ids.map(inputsOf)), { _tag: "Commit" as const, value: 0, manifest: streamManifest }))
        const read = yield* store.itemInputs(bundle)
        expect([...read.keys()].sort()).toEqual([...ids].sort().map((id) => `${bundle}//${id}`))
        expect(read.get(`${bundle}//k/1234`)).toEqual(inputsOf("k/1234"))
      }))

    it.effect("persistStreamed: a producer failing after writing batches leaves the bundle exactly as it was (R-IDX-3)", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("fails")
        const before = [indexDoc(bundle, "a", { content: "original" }), indexDoc(bundle, "b")]
        yield* store.persist(bundle, before, streamManifest)
        const exit = yield* Effect.exit(store.persistStreamed(bundle, (sink) =>
          Effect.gen(function* () {
            yield* sink.write([indexDoc(bundle, "a", { content: "changed" }), indexDoc(bundle, "c")])
            yield* sink.write([indexDoc(bundle, "d")])
            return yield* Effect.fail("the scan died")
          })))
        expect(Exit.isFailure(exit) && Cause.failureOption(exit.cause)).toEqual(Option.some("the scan died"))
        expect(yield* store.resolve(`${bundle}//a`)).toEqual(before[0])
        expect(yield* store.resolve(`${bundle}//b`)).toEqual(before[1])
        expect(yield* store.has(bundle, "c")).toBe(false)
        expect(yield* store.has(bundle, "d")).toBe(false)
        expect((yield* store.counts)[bundle]).toBe(2)
        expect(yield* store.manifest(bundle)).toMatchObject({ indexedAt: streamManifest.indexedAt, files: streamManifest.files })
        expect(refs(yield* findIn([bundle], "changed"))).toEqual([])
      }))

    it.effect("persistStreamed: Discard after writing batches keeps the old rows; a dry run says what would change and writes nothing", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("discard")
        const before = [indexDoc(bundle, "a"), indexDoc(bundle, "b")]
        yield* store.persist(bundle, before, streamManifest)
        const next = [indexDoc(bundle, "a", { content: "changed" }), indexDoc(bundle, "c")]
        const discarded = yield* store.persistStreamed(bundle, (sink) => Effect.as(sink.write(next), { _tag: "Discard" as const, value: "failed as a whole" }))
        expect(discarded).toEqual({ summary: undefined, value: "failed as a whole" })
        const planned = yield* store.persistStreamed(bundle, (sink) => Effect.as(Effect.zipRight(sink.write(next.slice(0, 1)), sink.write(next.slice(1))), { _tag: "Commit" as const, value: 1 }), { dryRun: true })
        expect(planned.summary).toEqual(yield* store.diff(bundle, next))
        expect(planned.summary).toEqual({ bundle, added: 1, updated: 1, removed: 1, unchanged: 0 })
        for (const doc of before) expect(yield* store.resolve(doc.ref)).toEqual(doc)
        expect(yield* store.has(bundle, "c")).toBe(false)
      }))

    it.effect("persistStreamed: a document of another bundle is a programming error and writes nothing", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("foreign")
        const exit = yield* Effect.exit(store.persistStreamed(bundle, (sink) =>
          Effect.as(Effect.zipRight(sink.write([indexDoc(bundle, "a")]), sink.write([indexDoc("someone-else", "b")])), { _tag: "Commit" as const, value: 0 })))
        expect(exit._tag).toBe("Failure")
        expect(yield* store.has(bundle, "a")).toBe(false)
      }))

    it.effect("resolve returns the document as persisted, and undefined for an unknown ref", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("resolve")
        const doc = richDoc(bundle)
        yield* store.persist(bundle, [doc])
        expect(yield* store.resolve(doc.ref)).toEqual(doc)
        expect(yield* store.resolve(`${bundle}//missing`)).toBeUndefined()
        expect(yield* store.resolve(`no-such-bundle//${doc.conceptId}`)).toBeUndefined()
      }))

    it.effect("has answers per bundle and concept id", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("has")
        yield* store.persist(bundle, [indexDoc(bundle, "dir/item")])
        expect(yield* store.has(bundle, "dir/item")).toBe(true)
        expect(yield* store.has(bundle, "dir")).toBe(false)
        expect(yield* store.has(bundle, "Dir/Item")).toBe(false)
        expect(yield* store.has(freshBundle("elsewhere"), "dir/item")).toBe(false)
      }))

    it.effect("counts items per bundle", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const one = freshBundle("count")
        const two = freshBundle("count")
        yield* store.persist(one, [indexDoc(one, "a")])
        yield* store.persist(two, [indexDoc(two, "a"), indexDoc(two, "b"), indexDoc(two, "c")])
        const counts = yield* store.counts
        expect(counts[one]).toBe(1)
        expect(counts[two]).toBe(3)
      }))

    it.effect("typeSizes counts one type's items and sums their bytes per bundle (spec 06 §8.2)", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const type = `memory-${freshBundle("type")}`
        const one = freshBundle("sizes")
        const two = freshBundle("sizes")
        const none = freshBundle("sizes")
        yield* store.persist(one, [indexDoc(one, "m/a", { type, bytes: 100 }), indexDoc(one, "m/b", { type, bytes: 250 }), indexDoc(one, "k", { type: "knowledge", bytes: 9_000 })])
        yield* store.persist(two, [indexDoc(two, "m/a", { type, bytes: 7 }), indexDoc(two, "untyped", { bytes: 40 })])
        yield* store.persist(none, [indexDoc(none, "k", { type: "Knowledge" })])
        expect(yield* store.typeSizes(type)).toEqual([{ bundle: one, items: 2, bytes: 350 }, { bundle: two, items: 1, bytes: 7 }])
        // Exact: another case is another type.
        expect(yield* store.typeSizes(type.toUpperCase())).toEqual([])
        yield* store.persist(one, [indexDoc(one, "m/a", { type, bytes: 100 })])
        expect((yield* store.typeSizes(type)).find((s) => s.bundle === one)).toEqual({ bundle: one, items: 1, bytes: 100 })
        yield* store.removeBundle(two)
        expect((yield* store.typeSizes(type)).map((s) => s.bundle)).toEqual([one])
      }))

    it.effect("retireOverlay hides rows whose ref and hash match from current browsing and typeSizes; a changed hash stays visible (R-MEM-5)", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("overlay")
        const type = `memory-${bundle}`
        yield* store.persist(bundle, [indexDoc(bundle, "m/a", { type, hash: "h-a" }), indexDoc(bundle, "m/b", { type, hash: "h-b" })])
        expect(yield* store.retireOverlay([{ ref: `${bundle}//m/a`, hash: "h-a" }, { ref: `${bundle}//m/b`, hash: "stale" }])).toBe(1)
        const listed = yield* store.browse({ bundle, prefix: "", filters: current([bundle]), limit: 10 })
        expect(listed.items.map((i) => i.ref)).toEqual([`${bundle}//m/b`])
        expect(yield* store.typeSizes(type)).toEqual([{ bundle, items: 1, bytes: expect.any(Number) }])
        const past = yield* store.browse({ bundle, prefix: "", filters: { ...current([bundle]), belief: "historical" }, limit: 10 })
        expect(past.items.map((i) => i.ref)).toEqual([`${bundle}//m/a`])
        // Upstream bytes changed: the re-persisted row is visible again.
        yield* store.persist(bundle, [indexDoc(bundle, "m/a", { type, hash: "h-a2" }), indexDoc(bundle, "m/b", { type, hash: "h-b" })])
        expect((yield* store.browse({ bundle, prefix: "", filters: current([bundle]), limit: 10 })).items.map((i) => i.ref)).toEqual([`${bundle}//m/a`, `${bundle}//m/b`])
      }))

    it.effect("the manifest is stored with the documents; a stale mark keeps the rows and clears on the next persist", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("manifest")
        expect(yield* store.manifest(bundle)).toBeUndefined()
        const manifest = {
          adapter: { id: "okf", version: "3" },
          indexedAt: "2025-06-01T10:00:00.000Z",
          files: [{ path: "a.md", size: 10, mtimeMs: 1_700_000_000_123.5, hash: "sha256-a" }, { path: "b/c.md", size: 0, mtimeMs: 1 }],
          writable: true,
          diagnostics: { error: 1, warning: 0, info: 2 }
        }
        yield* store.persist(bundle, [indexDoc(bundle, "a")], manifest)
        expect(yield* store.manifest(bundle)).toEqual({ bundle, ...manifest })
        expect((yield* store.bundles).find((b) => b.bundle === bundle)).toEqual({ bundle, items: 1, adapter: manifest.adapter, indexedAt: manifest.indexedAt, writable: true, diagnostics: manifest.diagnostics })
        expect((yield* store.items([`${bundle}//a`], allBelief))[0]?.editable).toBe(true)

        yield* store.markStale(bundle, "root missing")
        expect(yield* store.manifest(bundle)).toEqual({ bundle, ...manifest, staleReason: "root missing" })
        expect((yield* store.bundles).find((b) => b.bundle === bundle)?.staleReason).toBe("root missing")
        expect(yield* store.has(bundle, "a")).toBe(true)

        const next = { adapter: manifest.adapter, indexedAt: "2025-06-02T10:00:00.000Z", files: [], writable: false }
        yield* store.persist(bundle, [indexDoc(bundle, "b")], next)
        expect(yield* store.manifest(bundle)).toEqual({ bundle, ...next })
        expect((yield* store.bundles).find((b) => b.bundle === bundle)).toEqual({ bundle, items: 1, adapter: manifest.adapter, indexedAt: next.indexedAt, writable: false })
        expect((yield* store.items([`${bundle}//b`], allBelief))[0]?.editable).toBe(false)
      }))

    it.effect("a bundle never indexed can be marked stale; it is listed with no items", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("never")
        yield* store.markStale(bundle, "unreadable")
        expect((yield* store.bundles).find((b) => b.bundle === bundle)).toEqual({ bundle, items: 0, staleReason: "unreadable" })
      }))

    it.effect("removeBundle deletes one bundle's documents and manifest, returns how many, and leaves the others", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const gone = freshBundle("gone")
        const kept = freshBundle("kept")
        const manifest = { adapter: { id: "okf", version: "1" }, indexedAt: "2025-01-01T00:00:00.000Z", files: [] }
        yield* store.persist(gone, [indexDoc(gone, "a", { content: "marmoset" }), indexDoc(gone, "b")], manifest)
        yield* store.persist(kept, [indexDoc(kept, "a", { content: "marmoset" })])

        expect(yield* store.removeBundle(gone)).toBe(2)
        expect(yield* store.resolve(`${gone}//a`)).toBeUndefined()
        expect(yield* store.resolve(`${kept}//a`)).toBeDefined()
        expect(yield* store.manifest(gone)).toBeUndefined()
        expect((yield* store.bundles).map((b) => b.bundle)).not.toContain(gone)
        const counts = yield* store.counts
        expect(counts[gone]).toBeUndefined()
        expect(counts[kept]).toBe(1)
        expect(refs(yield* findIn([gone, kept], "marmoset"))).toEqual([`${kept}//a`])
        expect(yield* store.removeBundle(gone)).toBe(0)
      }))

    it.effect("renameBundle rekeys every ref, successor, utility and manifest to the new bundle name", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const from = freshBundle("old")
        const to = freshBundle("new")
        const bystander = `${from}er`
        const manifest = { adapter: { id: "okf", version: "1" }, indexedAt: "2025-01-01T00:00:00.000Z", files: [{ path: "notes/a.md", size: 3, mtimeMs: 5 }] }
        yield* store.persist(from, [indexDoc(from, "notes/a", { content: "capybara" }), indexDoc(from, "b", { supersededBy: `${from}//notes/a` })], manifest)
        yield* store.persist(bystander, [indexDoc(bystander, "notes/a")])
        yield* store.updateUtility(`${from}//notes/a`, 0.9, "2025-01-01T00:00:00.000Z")

        yield* store.renameBundle(from, to)

        expect(yield* store.resolve(`${from}//notes/a`)).toBeUndefined()
        const moved = yield* store.resolve(`${to}//notes/a`)
        expect(moved).toMatchObject({ ref: `${to}//notes/a`, bundle: to, conceptId: "notes/a", content: "capybara" })
        expect(yield* store.has(to, "b")).toBe(true)
        expect(yield* store.has(from, "b")).toBe(false)
        const counts = yield* store.counts
        expect(counts[to]).toBe(2)
        expect(counts[from]).toBeUndefined()
        expect(counts[bystander]).toBe(1)
        expect(yield* store.manifest(to)).toEqual({ bundle: to, ...manifest })
        expect(yield* store.manifest(from)).toBeUndefined()
        const found = yield* findIn([to], "capybara")
        expect(refs(found)).toEqual([`${to}//notes/a`])
        expect(found.candidates[0]!.item.utility?.value).toBe(0.9)
        // b's successor moved with it: current search hides b.
        const browsed = yield* store.browse({ bundle: to, prefix: "", filters: current([to]), limit: 10 })
        expect(browsed.items.map((i) => i.ref)).toEqual([`${to}//notes/a`])
        // The renamed bundle diffs against its new name: nothing looks added.
        expect(yield* store.persist(to, [indexDoc(to, "notes/a", { content: "capybara" }), indexDoc(to, "b")])).toMatchObject({ added: 0, removed: 0 })
      }))

    it.effect("candidates rank a name match first and report what each item matched", () =>
      Effect.gen(function* () {
        const bundle = freshBundle("rank")
        const store = yield* IndexStore
        yield* store.persist(bundle, [
          indexDoc(bundle, "mentions", { name: "Field notes", content: "the axolotl lives in lakes; an axolotl regrows limbs" }),
          indexDoc(bundle, "titled", { name: "Axolotl care", description: "keeping amphibians", content: "water temperature" }),
          indexDoc(bundle, "unrelated", { name: "Gardening", content: "tomatoes" })
        ])
        const found = yield* findIn([bundle], "axolotl")
        expect(refs(found)).toEqual([`${bundle}//titled`, `${bundle}//mentions`])
        expect(found.candidates[0]!.item).toMatchObject({ name: "Axolotl care", description: "keeping amphibians" })
        expect(found.candidates[0]!.lexical).toBeGreaterThan(found.candidates[1]!.lexical)
        expect(found.candidates[1]!.lexical).toBeGreaterThan(0)
        expect(found.total).toBe(2)
        // Case and neighbouring punctuation do not matter.
        expect(refs(yield* findIn([bundle], "AXOLOTL!"))).toEqual(refs(found))

        const two = yield* findIn([bundle], "axolotl amphibians")
        expect(refs(two)[0]).toBe(`${bundle}//titled`)
        expect(two.candidates.map((c) => c.matched)).toEqual([[true, true], [true, false]])
        expect(two.documentFrequency.length).toBe(2)
        expect(two.documentCount).toBeGreaterThanOrEqual(3)
      }))

    it.effect("words are stemmed and diacritics folded on both sides", () =>
      Effect.gen(function* () {
        const bundle = freshBundle("stem")
        const store = yield* IndexStore
        yield* store.persist(bundle, [indexDoc(bundle, "deploy", { name: "Deploying services", content: "Café résumé" })])
        for (const text of ["deployed", "deploys", "service", "cafe", "RESUME"]) {
          expect(refs(yield* findIn([bundle], text)), text).toEqual([`${bundle}//deploy`])
        }
      }))

    it.effect("a quoted phrase matches only as a phrase; OR keeps partial matches", () =>
      Effect.gen(function* () {
        const bundle = freshBundle("phrase")
        const store = yield* IndexStore
        yield* store.persist(bundle, [
          indexDoc(bundle, "together", { content: "run docker compose up" }),
          indexDoc(bundle, "apart", { content: "compose a letter, then use docker" })
        ])
        expect(refs(yield* findIn([bundle], '"docker compose"'))).toEqual([`${bundle}//together`])
        expect([...refs(yield* findIn([bundle], "docker compose"))].sort()).toEqual([`${bundle}//apart`, `${bundle}//together`])
        const partial = yield* findIn([bundle], "letter kangaroo")
        expect(refs(partial)).toEqual([`${bundle}//apart`])
        expect(partial.candidates[0]!.matched).toEqual([true, false])
      }))

    it.effect("prefix matching finds tokens of 3+ characters by their start", () =>
      Effect.gen(function* () {
        const bundle = freshBundle("prefix")
        const store = yield* IndexStore
        yield* store.persist(bundle, [indexDoc(bundle, "docker", { name: "Docker homelab" })])
        expect(refs(yield* findIn([bundle], "dock"))).toEqual([])
        expect(refs(yield* findIn([bundle], "dock", { prefix: true }))).toEqual([`${bundle}//docker`])
        expect(refs(yield* findIn([bundle], "do", { prefix: true }))).toEqual([])
      }))

    it.effect("substring search finds CJK text and inner substrings, LIKE below three characters", () =>
      Effect.gen(function* () {
        const bundle = freshBundle("trigram")
        const store = yield* IndexStore
        yield* store.persist(bundle, [
          indexDoc(bundle, "ja", { name: "検索エンジンの設定", content: "全文検索の使い方" }),
          indexDoc(bundle, "en", { name: "Kubernetes rollout", content: "nothing in Japanese" })
        ])
        const match = (segments: ReadonlyArray<string>) => store.candidates({ match: { _tag: "Substring", segments }, filters: current([bundle]), limit: 10 })
        expect(refs(yield* match(["検索エンジン"]))).toEqual([`${bundle}//ja`])
        expect(refs(yield* match(["設定"]))).toEqual([`${bundle}//ja`])
        expect(refs(yield* match(["ubernet"]))).toEqual([`${bundle}//en`])
        const both = yield* match(["全文検索", "rollout"])
        expect([...refs(both)].sort()).toEqual([`${bundle}//en`, `${bundle}//ja`])
        expect(both.documentFrequency).toEqual([1, 1])
        expect(refs(yield* match(["%"]))).toEqual([])
        expect(refs(yield* findIn([bundle], "検索"))).toEqual([`${bundle}//ja`])
      }))

    it.effect("an updated document is found by its new content and no longer by its old", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("reindex")
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "pangolin", name: "Zebra" })])
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "narwhal", hash: "sha256-a2", name: "Okapi" })])
        expect(refs(yield* findIn([bundle], "pangolin"))).toEqual([])
        expect(refs(yield* findIn([bundle], "zebra"))).toEqual([])
        expect(refs(yield* findIn([bundle], "narwhal"))).toEqual([`${bundle}//a`])
        expect(refs(yield* findIn([bundle], "okapi"))).toEqual([`${bundle}//a`])
      }))

    it.effect("candidates respect the bundle, type and adapter filters and the limit", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const left = freshBundle("left")
        const right = freshBundle("right")
        yield* store.persist(left, ["1", "2", "3", "4", "5"].map((n) => indexDoc(left, `item-${n}`, { content: `okapi number ${n}`, type: n === "1" ? "skill" : "note" })))
        yield* store.persist(right, [indexDoc(right, "item", { content: "okapi", adapter: "akm" })])

        expect(refs(yield* findIn([right], "okapi"))).toEqual([`${right}//item`])
        const both = yield* findIn([left, right], "okapi")
        expect(both.candidates).toHaveLength(6)
        expect(both.total).toBe(6)
        const limited = yield* findIn([left, right], "okapi", { limit: 2 })
        expect(limited.candidates).toHaveLength(2)
        expect(limited.total).toBe(6)
        expect(refs(yield* findIn([left, right], "okapi", { filters: { types: ["skill"] } }))).toEqual([`${left}//item-1`])
        expect(refs(yield* findIn([left, right], "okapi", { filters: { types: ["no-such-type"] } }))).toEqual([])
        // Types match case-insensitively (issue 15 item 5, spec 04 §3): `--type SKILL` is `--type skill`.
        expect(refs(yield* findIn([left, right], "okapi", { filters: { types: ["SKILL"] } }))).toEqual([`${left}//item-1`])
        expect(refs(yield* findIn([left, right], "okapi", { filters: { types: ["Skill", "NOTE"] } }))).toHaveLength(5)
        expect(refs(yield* findIn([left, right], "okapi", { filters: { adapters: ["akm"] } }))).toEqual([`${right}//item`])
        expect(refs(yield* findIn([freshBundle("empty")], "okapi"))).toEqual([])
      }))

    it.effect("total counts every match that passes the filters, however far below the limit", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("total")
        const word = `zorblax${bundleCounter}`
        yield* store.persist(bundle, [
          ...Array.from({ length: 12 }, (_, i) => indexDoc(bundle, `n${String(i).padStart(2, "0")}`, { content: `${word} ${"filler ".repeat(i)}` })),
          indexDoc(bundle, "draft", { content: word, quality: "proposed" }),
          indexDoc(bundle, "old", { content: word, supersededBy: "n00" })
        ])
        for (const limit of [3, 5, 100]) {
          const found = yield* findIn([], word, { limit, filters: { bundles: undefined } })
          expect(found.total, `limit ${limit}`).toBe(12)
          expect(found.candidates).toHaveLength(Math.min(limit, 12))
          expect(refs(found)).not.toContain(`${bundle}//draft`)
        }
        const all = yield* findIn([], word, { limit: 3, filters: { bundles: undefined, belief: "all", includeProposed: true } })
        expect(all.total).toBe(14)
        // The best by bm25 first: the shortest texts.
        expect(refs(yield* findIn([], word, { limit: 2, filters: { bundles: undefined } }))).toEqual([`${bundle}//n00`, `${bundle}//n01`])
      }))

    it.effect("total follows a successor indexed after an earlier search: the excluded items are never those of a past index", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("later")
        const word = `quargle${bundleCounter}`
        const docs = [
          ...Array.from({ length: 12 }, (_, i) => indexDoc(bundle, `n${String(i).padStart(2, "0")}`, { content: `${word} ${"filler ".repeat(i + 1)}` })),
          indexDoc(bundle, "orphan", { content: word, supersededBy: "later" })
        ]
        yield* store.persist(bundle, docs)
        // Its successor is not in the index: the orphan is current, found and counted.
        const before = yield* findIn([], word, { limit: 3, filters: { bundles: undefined } })
        expect(before.total).toBe(13)
        expect(refs(before)).toContain(`${bundle}//orphan`)
        yield* store.persist(bundle, [...docs, indexDoc(bundle, "later", { content: "unrelated" })])
        const after = yield* findIn([], word, { limit: 3, filters: { bundles: undefined } })
        expect(after.total).toBe(12)
        expect(refs(after)).not.toContain(`${bundle}//orphan`)
      }))

    it.effect("proposed items and scope keys are filtered", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("quality")
        yield* store.persist(bundle, [
          indexDoc(bundle, "draft", { content: "quokka", quality: "proposed" }),
          indexDoc(bundle, "web", { content: "quokka", scope: { project: "web", team: "a" } }),
          indexDoc(bundle, "api", { content: "quokka", scope: { project: "api" } })
        ])
        expect([...refs(yield* findIn([bundle], "quokka"))].sort()).toEqual([`${bundle}//api`, `${bundle}//web`])
        expect(refs(yield* findIn([bundle], "quokka", { filters: { includeProposed: true } }))).toContain(`${bundle}//draft`)
        expect(refs(yield* findIn([bundle], "quokka", { filters: { scope: { project: "web" } } }))).toEqual([`${bundle}//web`])
        expect(refs(yield* findIn([bundle], "quokka", { filters: { scope: { project: "web", team: "b" } } }))).toEqual([])
      }))

    it.effect("current belief hides items replaced by a successor in the index; historical lists only the past", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("belief")
        yield* store.persist(bundle, [
          indexDoc(bundle, "v1", { content: "wombat", beliefState: "superseded", supersededBy: "v2" }),
          indexDoc(bundle, "v2", { content: "wombat" }),
          indexDoc(bundle, "orphan", { content: "wombat", supersededBy: "gone" }),
          indexDoc(bundle, "withdrawn", { content: "wombat", beliefState: "contradicted" }),
          indexDoc(bundle, "old", { content: "wombat", status: "deprecated" })
        ])
        const sorted = (set: CandidateSet) => [...refs(set)].sort()
        expect(sorted(yield* findIn([bundle], "wombat"))).toEqual(["old", "orphan", "v2", "withdrawn"].map((id) => `${bundle}//${id}`))
        expect(sorted(yield* findIn([bundle], "wombat", { filters: { belief: "historical" } }))).toEqual(["old", "orphan", "v1", "withdrawn"].map((id) => `${bundle}//${id}`))
        expect(sorted(yield* findIn([bundle], "wombat", { filters: { belief: "all" } }))).toHaveLength(5)
        const v1 = (yield* findIn([bundle], "wombat", { filters: { belief: "all" } })).candidates.find((c) => c.item.ref === `${bundle}//v1`)
        expect(v1?.item.supersededBy).toBe(`${bundle}//v2`)
      }))

    it.effect("an empty or punctuation-only query finds nothing and fails nothing", () =>
      Effect.gen(function* () {
        const bundle = freshBundle("empty-query")
        const store = yield* IndexStore
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "anything at all" })])
        for (const text of ["", "   ", "!!!", "*", "-- ''", "\"\"", "…"]) {
          expect(refs(yield* findIn([bundle], text)), `query ${JSON.stringify(text)}`).toEqual([])
        }
        expect(yield* store.candidates({ match: { _tag: "Substring", segments: [] }, filters: allBelief, limit: 5 })).toMatchObject({ candidates: [], total: 0 })
      }))

    it.effect("search text is never parsed as query syntax", () =>
      Effect.gen(function* () {
        const bundle = freshBundle("syntax")
        const store = yield* IndexStore
        yield* store.persist(bundle, [
          indexDoc(bundle, "cpp", { name: "Modern C++", content: "what's new: the \"quoted\" keyword and NEAR misses" }),
          indexDoc(bundle, "other", { content: "nothing relevant" })
        ])
        for (const text of ftsSyntax) {
          for (const prefix of [false, true]) expect(Array.isArray((yield* findIn([bundle], text, { prefix })).candidates), `query ${JSON.stringify(text)}`).toBe(true)
          yield* store.candidates({ match: { _tag: "Substring", segments: [text] }, filters: current([bundle]), limit: 5 })
        }
        for (const text of ["c++", "what's", "\"quoted", "NEAR(a b)"]) {
          expect(refs(yield* findIn([bundle], text)), `query ${JSON.stringify(text)}`).toContain(`${bundle}//cpp`)
        }
      }))

    it.effect("browse lists items under a prefix, sorted by ref, with the total before the limit", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("browse")
        const other = freshBundle("browse")
        yield* store.persist(bundle, ["skills/b", "skills/a", "skillset", "notes/x"].map((id) => indexDoc(bundle, id)))
        yield* store.persist(other, [indexDoc(other, "skills/c")])
        const list = (query: { readonly bundle?: string; readonly prefix: string; readonly limit?: number }) =>
          store.browse({ filters: current([bundle, other]), limit: 10, ...query })
        expect((yield* list({ bundle, prefix: "skills/" })).items.map((i) => i.conceptId)).toEqual(["skills/a", "skills/b"])
        expect((yield* list({ prefix: "skills/" })).items.map((i) => i.ref)).toEqual([`${bundle}//skills/a`, `${bundle}//skills/b`, `${other}//skills/c`])
        expect(yield* list({ bundle, prefix: "", limit: 2 })).toMatchObject({ total: 4, items: [{ conceptId: "notes/x" }, { conceptId: "skills/a" }] })
        expect((yield* list({ bundle, prefix: "nothing/" })).items).toEqual([])
      }))

    it.effect("items fetches refs in the order given, filtered, skipping unknown refs", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("items")
        yield* store.persist(bundle, [indexDoc(bundle, "a", { type: "skill" }), indexDoc(bundle, "b", { type: "note" }), indexDoc(bundle, "c", { quality: "proposed" })])
        const items = (refs: ReadonlyArray<string>, filters: Partial<ItemFilters> = {}) =>
          Effect.map(store.items(refs.map((id) => `${bundle}//${id}`), { ...current([bundle]), ...filters }), (found) => found.map((i) => i.conceptId))
        expect(yield* items(["b", "missing", "a"])).toEqual(["b", "a"])
        expect(yield* items(["a", "b"], { types: ["skill"] })).toEqual(["a"])
        expect(yield* items(["a", "b"], { types: ["Skill"] })).toEqual(["a"])
        expect(yield* items(["c"])).toEqual([])
        expect(yield* items([])).toEqual([])
      }))

    it.effect("excerpts: the first characters of each item's content, by ref (search snippets)", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("excerpts")
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "Rotate the keys\nevery month." }), indexDoc(bundle, "b"), indexDoc(bundle, "c", { content: "é".repeat(50) })])
        const got = yield* store.excerpts([`${bundle}//a`, `${bundle}//b`, `${bundle}//c`, `${bundle}//missing`], 20)
        expect(got.get(`${bundle}//a`)).toBe("Rotate the keys\never")
        expect(got.get(`${bundle}//c`)).toBe("é".repeat(20))
        expect(got.has(`${bundle}//b`)).toBe(false)
        expect((yield* store.excerpts([], 20)).size).toBe(0)
      }))

    it.effect("exact token counts are cached by content hash and show on items", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("tokens")
        expect(yield* store.cachedTokens("sha256-tokens-x")).toBeUndefined()
        yield* store.storeTokens("sha256-tokens-x", 812)
        yield* store.storeTokens("sha256-tokens-x", 813)
        expect(yield* store.cachedTokens("sha256-tokens-x")).toBe(813)
        yield* store.persist(bundle, [indexDoc(bundle, "a", { hash: "sha256-tokens-x", content: "ibex" }), indexDoc(bundle, "b", { content: "ibex" })])
        const items = (yield* findIn([bundle], "ibex")).candidates.map((c) => c.item)
        expect(items.find((i) => i.conceptId === "a")?.tokens).toBe(813)
        expect(items.find((i) => i.conceptId === "b")?.tokens).toBeUndefined()
      }))

    it.effect("utilities are replaced as a whole or updated per ref, and survive a re-persist", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("utility")
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "tapir" }), indexDoc(bundle, "b", { content: "tapir" })])
        yield* store.replaceUtilities(new Map([[`${bundle}//a`, { value: 0.8, at: "2025-02-01T00:00:00.000Z" }]]))
        yield* store.updateUtility(`${bundle}//b`, 0.2, "2025-02-02T00:00:00.000Z")
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "tapir", name: "renamed" }), indexDoc(bundle, "b", { content: "tapir" })])
        const items = (yield* findIn([bundle], "tapir")).candidates.map((c) => c.item)
        expect(items.find((i) => i.conceptId === "a")?.utility).toEqual({ value: 0.8, at: "2025-02-01T00:00:00.000Z" })
        expect(items.find((i) => i.conceptId === "b")?.utility).toEqual({ value: 0.2, at: "2025-02-02T00:00:00.000Z" })
        yield* store.replaceUtilities(new Map())
        expect((yield* findIn([bundle], "tapir")).candidates.every((c) => c.item.utility === undefined)).toBe(true)
      }))

    it.effect("replaceUtilities keeps each ref's own learned time, whatever the index held before (R-FB-1)", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("utility-at")
        const [a, b, c] = ["a", "b", "c"].map((id) => `${bundle}//${id}`) as [string, string, string]
        yield* store.persist(bundle, ["a", "b", "c"].map((id) => indexDoc(bundle, id, { content: "okapi" })))
        const utilityOf = (items: ReadonlyArray<IndexedItem>) => Object.fromEntries(items.map((i) => [i.conceptId, i.utility]))
        // From nothing (a rebuilt index.db): times come from the map, not from when the copy ran.
        yield* store.replaceUtilities(new Map([[a, { value: 0.9, at: "2024-09-01T00:00:00.000Z" }], [b, { value: 0.3, at: "2025-01-15T12:00:00.000Z" }]]))
        expect(utilityOf(yield* store.items([a, b, c], { belief: "all", includeProposed: true }))).toEqual({
          a: { value: 0.9, at: "2024-09-01T00:00:00.000Z" },
          b: { value: 0.3, at: "2025-01-15T12:00:00.000Z" },
          c: undefined
        })
        // Over existing rows: an unchanged value with a newer outcome takes the newer time; one copied per ref is overwritten.
        yield* store.updateUtility(c, 0.6, "2025-03-01T00:00:00.000Z")
        yield* store.replaceUtilities(new Map([[a, { value: 0.9, at: "2025-02-01T00:00:00.000Z" }], [c, { value: 0.7, at: "2025-02-20T00:00:00.000Z" }]]))
        expect(utilityOf((yield* findIn([bundle], "okapi")).candidates.map((x) => x.item))).toEqual({
          a: { value: 0.9, at: "2025-02-01T00:00:00.000Z" },
          b: undefined,
          c: { value: 0.7, at: "2025-02-20T00:00:00.000Z" }
        })
      }))

    it.effect("an index run is recorded", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        yield* store.recordIndexRun("2025-03-01T00:00:00.000Z")
        expect(yield* store.lastIndexed).toBe("2025-03-01T00:00:00.000Z")
      }))

    it.effect("the write lease admits one writer at a time", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const order: Array<string> = []
        const gate = yield* Deferred.make<void>()
        const first = yield* Effect.fork(store.withWriteLease(Effect.gen(function* () {
          order.push("a in")
          yield* Deferred.await(gate)
          order.push("a out")
        })))
        while (order.length === 0) yield* Effect.yieldNow()
        const second = yield* Effect.fork(store.withWriteLease(Effect.sync(() => order.push("b"))))
        yield* Effect.repeatN(Effect.yieldNow(), 50)
        expect(order).toEqual(["a in"])
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(first)
        yield* Fiber.join(second)
        expect(order).toEqual(["a in", "a out", "b"])
      }))
  })
