import { Effect, Layer, Ref } from "effect"
import type { IndexDocument, PersistSummary, SearchHit } from "../../domain/IndexDocument.js"
import { IndexStore } from "../../services/IndexStore.js"

const tokens = (text: string): ReadonlyArray<string> =>
  text.normalize("NFC").toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((t) => t.length > 0)

/** Field weights mirror the SQLite layer's bm25 weights (name 10 … content 1). */
const fields = (doc: IndexDocument): ReadonlyArray<readonly [string, number]> => [
  [doc.name, 10],
  [doc.description ?? "", 5],
  [(doc.tags ?? []).join(" "), 3],
  [(doc.hints ?? []).join(" "), 2],
  [doc.content ?? "", 1]
]

const score = (doc: IndexDocument, query: ReadonlyArray<string>): number => {
  let total = 0
  for (const [text, weight] of fields(doc)) {
    const words = new Set(tokens(text))
    for (const term of query) if (words.has(term)) total += weight
  }
  return total
}

/**
 * IndexStore in memory: the test layer, and later the improve sandbox. Same
 * contract as the SQLite layer (test/services/IndexStore.contract.ts).
 */
export const makeIndexStoreMemory = Effect.gen(function* () {
  const state = yield* Ref.make<ReadonlyMap<string, IndexDocument>>(new Map())
  const status = { path: ":memory:", migrations: [] as ReadonlyArray<string>, integrity: "ok" }

  return IndexStore.of({
    init: Effect.succeed(status),
    persist: (bundle, docs) =>
      Ref.modify(state, (current) => {
        const next = new Map(current)
        const summary = { bundle, added: 0, updated: 0, removed: 0, unchanged: 0 }
        const seen = new Set(docs.map((d) => d.ref))
        for (const [ref, doc] of current) {
          if (doc.bundle === bundle && !seen.has(ref)) {
            next.delete(ref)
            summary.removed++
          }
        }
        for (const doc of docs) {
          const before = current.get(doc.ref)
          if (before === undefined) summary.added++
          else if (JSON.stringify(before) === JSON.stringify(doc)) summary.unchanged++
          else summary.updated++
          next.set(doc.ref, doc)
        }
        return [summary satisfies PersistSummary, next]
      }),
    resolve: (ref) => Effect.map(Ref.get(state), (docs) => docs.get(ref)),
    has: (bundle, conceptId) => Effect.map(Ref.get(state), (docs) => docs.has(`${bundle}//${conceptId}`)),
    search: (query) =>
      Effect.map(Ref.get(state), (docs) => {
        const terms = tokens(query.text)
        if (terms.length === 0) return []
        const hits: Array<SearchHit> = []
        for (const doc of docs.values()) {
          if (query.bundles !== undefined && query.bundles.length > 0 && !query.bundles.includes(doc.bundle)) continue
          const s = score(doc, terms)
          if (s > 0) hits.push({ ref: doc.ref, name: doc.name, description: doc.description, type: doc.type, score: s })
        }
        return hits.sort((a, b) => b.score - a.score || (a.ref < b.ref ? -1 : 1)).slice(0, query.limit)
      }),
    counts: Effect.map(Ref.get(state), (docs) => {
      const counts: Record<string, number> = {}
      for (const doc of docs.values()) counts[doc.bundle] = (counts[doc.bundle] ?? 0) + 1
      return counts
    }),
    removeBundle: (bundle) =>
      Ref.modify(state, (current) => {
        const next = new Map([...current].filter(([, doc]) => doc.bundle !== bundle))
        return [current.size - next.size, next]
      }),
    renameBundle: (from, to) =>
      Ref.update(state, (current) => {
        const next = new Map<string, IndexDocument>()
        for (const doc of current.values()) {
          const moved = doc.bundle === from ? { ...doc, bundle: to, ref: `${to}//${doc.conceptId}` } : doc
          next.set(moved.ref, moved)
        }
        return next
      })
  })
})

export const IndexStoreMemory = Layer.effect(IndexStore, makeIndexStoreMemory)
