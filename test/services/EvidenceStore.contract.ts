import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, type Layer, TestClock } from "effect"
import type { EvidenceInput } from "../../src/domain/Evidence.js"
import { EvidenceStore } from "../../src/services/EvidenceStore.js"

/**
 * R-ARCH-5: every EvidenceStore layer passes this suite. The layer is shared
 * by all cases, so each case uses refs of its own.
 */
let counter = 0
const fresh = (label: string) => `b${++counter}//${label}`

const row = (ref: string, over: Partial<EvidenceInput> = {}): EvidenceInput => ({ kind: "negative-feedback", source: "feedback", ref, note: "steps are outdated", ...over })

export const evidenceStoreContract = (name: string, layer: Layer.Layer<EvidenceStore, unknown>) =>
  layer_(layer)(`EvidenceStore contract: ${name}`, (it) => {
    it.effect("add stores a row with its hash, id, time and status open", () =>
      Effect.gen(function* () {
        const store = yield* EvidenceStore
        const ref = fresh("a")
        yield* TestClock.setTime(Date.parse("2031-02-03T04:05:06.007Z"))
        const [stored] = yield* store.add([row(ref, { query: "deploy", origin: "feedback:1", observedAt: "2031-02-02T00:00:00.000Z", independenceKey: "s1" })])
        expect(stored).toMatchObject({ kind: "negative-feedback", source: "feedback", ref, note: "steps are outdated", query: "deploy", origin: "feedback:1", observedAt: "2031-02-02T00:00:00.000Z", independenceKey: "s1", status: "open", recordedAt: "2031-02-03T04:05:06.007Z" })
        expect(stored!.hash).toMatch(/^[0-9a-f]{64}$/)
        expect(stored!.id).toMatch(/^[0-9a-f]{16}$/)
        expect(yield* store.get([stored!.id])).toEqual([stored])
      }))

    it.effect("data round-trips as given; a row without data has none", () =>
      Effect.gen(function* () {
        const store = yield* EvidenceStore
        const ref = fresh("data")
        const [withData] = yield* store.add([row(ref, { note: "queued capture", data: { tags: ["a", "b"], expires: "2031-01-01T00:00:00.000Z", nested: { n: 1 } } })])
        const [without] = yield* store.add([row(ref, { note: "plain" })])
        expect(withData!.data).toEqual({ tags: ["a", "b"], expires: "2031-01-01T00:00:00.000Z", nested: { n: 1 } })
        expect(without).not.toHaveProperty("data")
        expect((yield* store.get([withData!.id]))[0]!.data).toEqual(withData!.data)
      }))

    it.effect("add is idempotent: the same content under the same independence key is the same row, status kept", () =>
      Effect.gen(function* () {
        const store = yield* EvidenceStore
        const ref = fresh("idem")
        const [first] = yield* store.add([row(ref, { independenceKey: "session-1" })])
        yield* store.mark([first!.id], "dismissed")
        yield* TestClock.adjust("1 hour")
        const [again] = yield* store.add([row(ref, { independenceKey: "session-1" })])
        expect(again).toEqual({ ...first, status: "dismissed" })
        expect(yield* store.list({ ref })).toHaveLength(1)
        // Without a key the row is its own key: adding it twice is still one row.
        const [a] = yield* store.add([row(ref, { note: "no key" })])
        const [b] = yield* store.add([row(ref, { note: "no key" })])
        expect(b!.id).toBe(a!.id)
        expect(a!.independenceKey).toBe(a!.id)
        expect(yield* store.list({ ref })).toHaveLength(2)
      }))

    it.effect("R-IMP-2: ten observations from one session count as one; distinct sessions count each", () =>
      Effect.gen(function* () {
        const store = yield* EvidenceStore
        const ref = fresh("independence")
        const one = yield* store.add(Array.from({ length: 10 }, (_, i) => row(ref, { kind: "session", source: "claude-code", note: `correction ${i}`, origin: `t.jsonl:${i + 1}`, independenceKey: "session-A" })))
        expect(one).toHaveLength(10)
        expect(new Set(one.map((e) => e.id)).size).toBe(10)
        expect(store.independentCount(one)).toBe(1)
        const other = yield* store.add([row(ref, { kind: "session", source: "codex", note: "correction 0", origin: "u.jsonl:1", independenceKey: "session-B" })])
        const all = yield* store.list({ ref })
        expect(all).toHaveLength(11)
        expect(store.independentCount(all)).toBe(2)
        expect(store.independentCount([...one, ...other, ...one])).toBe(2)
      }))

    it.effect("list filters by ref, kind, status, bundle and source, newest first, with a limit", () =>
      Effect.gen(function* () {
        const store = yield* EvidenceStore
        const ref = fresh("filters")
        const bundle = ref.split("//")[0]!
        const [a] = yield* store.add([row(ref, { note: "first" })])
        yield* TestClock.adjust("1 minute")
        const [b] = yield* store.add([row(ref, { kind: "lint-error", source: "lint", note: "second" })])
        yield* TestClock.adjust("1 minute")
        const [c] = yield* store.add([row(`${bundle}//other`, { kind: "broken-link", source: "lint", note: "third" })])
        yield* store.add([row(`${bundle}x//other`, { note: "another bundle" })])
        expect((yield* store.list({ ref })).map((e) => e.id)).toEqual([b!.id, a!.id])
        expect((yield* store.list({ bundle })).map((e) => e.id)).toEqual([c!.id, b!.id, a!.id])
        expect((yield* store.list({ bundle, kind: "lint-error" })).map((e) => e.id)).toEqual([b!.id])
        expect((yield* store.list({ bundle, source: "lint" })).map((e) => e.id)).toEqual([c!.id, b!.id])
        expect((yield* store.list({ bundle, limit: 1 })).map((e) => e.id)).toEqual([c!.id])
        yield* store.mark([a!.id, c!.id], "used")
        expect((yield* store.list({ bundle, status: "used" })).map((e) => e.id)).toEqual([c!.id, a!.id])
        expect((yield* store.list({ bundle, status: "open" })).map((e) => e.id)).toEqual([b!.id])
      }))

    it.effect("evidence without a ref is kept and listed", () =>
      Effect.gen(function* () {
        const store = yield* EvidenceStore
        const query = `how do I rotate ${fresh("q")}`
        const [stored] = yield* store.add([{ kind: "question", source: "codex", note: query, query, independenceKey: "s" }])
        expect(stored!.ref).toBeUndefined()
        expect((yield* store.list({ kind: "question" })).some((e) => e.id === stored!.id)).toBe(true)
      }))

    it.effect("mark dismisses and uses rows; get of unknown ids is empty; ids resolve by prefix", () =>
      Effect.gen(function* () {
        const store = yield* EvidenceStore
        const ref = fresh("mark")
        const [e] = yield* store.add([row(ref)])
        yield* store.mark([e!.id], "dismissed")
        expect((yield* store.get([e!.id]))[0]!.status).toBe("dismissed")
        yield* store.mark([], "used")
        expect(yield* store.get(["0000000000000000"])).toEqual([])
        expect(yield* store.idsStartingWith(e!.id.slice(0, 10), 5)).toEqual([e!.id])
      }))

    it.effect("renameBundle rekeys refs and hashes; ids stay; re-adding under the new name is the same row", () =>
      Effect.gen(function* () {
        const store = yield* EvidenceStore
        const ref = fresh("rename/item")
        const from = ref.split("//")[0]!
        const to = `${from}-renamed`
        const [before] = yield* store.add([row(ref, { independenceKey: "k" })])
        const [keep] = yield* store.add([row(`${from}x//item`, { independenceKey: "k" })])
        yield* store.renameBundle(from, to)
        const [after] = yield* store.get([before!.id])
        expect(after!.ref).toBe(`${to}//rename/item`)
        expect(after!.hash).not.toBe(before!.hash)
        expect((yield* store.get([keep!.id]))[0]!.ref).toBe(`${from}x//item`)
        const [readded] = yield* store.add([row(`${to}//rename/item`, { independenceKey: "k" })])
        expect(readded!.id).toBe(before!.id)
        yield* store.renameBundle(from, to)
        expect(yield* store.list({ bundle: from })).toEqual([])
      }))
  })
