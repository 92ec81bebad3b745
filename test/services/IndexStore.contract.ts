import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import type { IndexDocument } from "../../src/domain/IndexDocument.js"
import { IndexStore } from "../../src/services/IndexStore.js"

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

const ftsSyntax = ["c++", "what's", "\"quoted", "AND OR NOT", "*", "NEAR(a b)", "name:caching", "-minus", "a AND", "(", "^start"]

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

        const second = yield* store.persist(bundle, [
          indexDoc(bundle, "a"),
          indexDoc(bundle, "b", { hash: "sha256-b2", content: "changed" }),
          indexDoc(bundle, "d")
        ])
        expect(second).toEqual({ bundle, added: 1, updated: 1, removed: 1, unchanged: 1 })
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

    it.effect("removeBundle deletes one bundle's documents, returns how many, and leaves the others", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const gone = freshBundle("gone")
        const kept = freshBundle("kept")
        yield* store.persist(gone, [indexDoc(gone, "a", { content: "marmoset" }), indexDoc(gone, "b")])
        yield* store.persist(kept, [indexDoc(kept, "a", { content: "marmoset" })])

        expect(yield* store.removeBundle(gone)).toBe(2)
        expect(yield* store.resolve(`${gone}//a`)).toBeUndefined()
        expect(yield* store.resolve(`${kept}//a`)).toBeDefined()
        const counts = yield* store.counts
        expect(counts[gone]).toBeUndefined()
        expect(counts[kept]).toBe(1)
        const hits = yield* store.search({ text: "marmoset", limit: 10, bundles: [gone, kept] })
        expect(hits.map((hit) => hit.ref)).toEqual([`${kept}//a`])
        expect(yield* store.removeBundle(gone)).toBe(0)
      }))

    it.effect("renameBundle rekeys every ref to the new bundle name", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const from = freshBundle("old")
        const to = freshBundle("new")
        const bystander = `${from}er`
        yield* store.persist(from, [indexDoc(from, "notes/a", { content: "capybara" }), indexDoc(from, "b")])
        yield* store.persist(bystander, [indexDoc(bystander, "notes/a")])

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
        expect((yield* store.search({ text: "capybara", limit: 10, bundles: [to] })).map((hit) => hit.ref)).toEqual([`${to}//notes/a`])
        // The renamed bundle diffs against its new name: nothing looks added.
        expect(yield* store.persist(to, [indexDoc(to, "notes/a", { content: "capybara" }), indexDoc(to, "b")])).toMatchObject({ added: 0, removed: 0 })
      }))

    it.effect("search finds by name and content, a name match ranking first", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("rank")
        yield* store.persist(bundle, [
          indexDoc(bundle, "mentions", { name: "Field notes", content: "the axolotl lives in lakes; an axolotl regrows limbs" }),
          indexDoc(bundle, "titled", { name: "Axolotl care", description: "keeping amphibians", content: "water temperature" }),
          indexDoc(bundle, "unrelated", { name: "Gardening", content: "tomatoes" })
        ])
        const hits = yield* store.search({ text: "axolotl", limit: 10, bundles: [bundle] })
        expect(hits.map((hit) => hit.ref)).toEqual([`${bundle}//titled`, `${bundle}//mentions`])
        expect(hits[0]).toMatchObject({ name: "Axolotl care", description: "keeping amphibians" })
        expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score)
        // Case and neighbouring punctuation do not matter.
        expect((yield* store.search({ text: "AXOLOTL!", limit: 10, bundles: [bundle] })).map((hit) => hit.ref)).toEqual(hits.map((hit) => hit.ref))
      }))

    it.effect("an updated document is found by its new content and no longer by its old", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("reindex")
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "pangolin" })])
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "narwhal", hash: "sha256-a2" })])
        expect(yield* store.search({ text: "pangolin", limit: 10, bundles: [bundle] })).toEqual([])
        expect((yield* store.search({ text: "narwhal", limit: 10, bundles: [bundle] })).map((hit) => hit.ref)).toEqual([`${bundle}//a`])
      }))

    it.effect("search respects the bundles filter and the limit", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const left = freshBundle("left")
        const right = freshBundle("right")
        yield* store.persist(left, ["1", "2", "3", "4", "5"].map((n) => indexDoc(left, `item-${n}`, { content: `okapi number ${n}` })))
        yield* store.persist(right, [indexDoc(right, "item", { content: "okapi" })])

        const onlyRight = yield* store.search({ text: "okapi", limit: 10, bundles: [right] })
        expect(onlyRight.map((hit) => hit.ref)).toEqual([`${right}//item`])
        const both = yield* store.search({ text: "okapi", limit: 10, bundles: [left, right] })
        expect(both).toHaveLength(6)
        const everywhere = yield* store.search({ text: "okapi", limit: 50 })
        expect(everywhere.map((hit) => hit.ref)).toEqual(expect.arrayContaining(both.map((hit) => hit.ref)))
        expect(yield* store.search({ text: "okapi", limit: 2, bundles: [left, right] })).toHaveLength(2)
        expect(yield* store.search({ text: "okapi", limit: 10, bundles: [freshBundle("empty")] })).toEqual([])
      }))

    it.effect("an empty or punctuation-only query finds nothing and fails nothing", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("empty-query")
        yield* store.persist(bundle, [indexDoc(bundle, "a", { content: "anything at all" })])
        for (const text of ["", "   ", "!!!", "*", "-- ''", "\"\"", "…"]) {
          expect(yield* store.search({ text, limit: 10 }), `query ${JSON.stringify(text)}`).toEqual([])
        }
      }))

    it.effect("search text is never parsed as query syntax", () =>
      Effect.gen(function* () {
        const store = yield* IndexStore
        const bundle = freshBundle("syntax")
        yield* store.persist(bundle, [
          indexDoc(bundle, "cpp", { name: "Modern C++", content: "what's new: the \"quoted\" keyword and NEAR misses" }),
          indexDoc(bundle, "other", { content: "nothing relevant" })
        ])
        for (const text of ftsSyntax) {
          const hits = yield* store.search({ text, limit: 10, bundles: [bundle] })
          expect(Array.isArray(hits), `query ${JSON.stringify(text)}`).toBe(true)
        }
        for (const text of ["c++", "what's", "\"quoted", "NEAR(a b)"]) {
          const hits = yield* store.search({ text, limit: 10, bundles: [bundle] })
          expect(hits.map((hit) => hit.ref), `query ${JSON.stringify(text)}`).toContain(`${bundle}//cpp`)
        }
      }))
  })
