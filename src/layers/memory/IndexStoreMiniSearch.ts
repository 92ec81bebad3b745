import MiniSearch, { type Query, type SearchResult } from "minisearch"
import { Effect, Layer } from "effect"
import type { IndexDocument, PersistSummary } from "../../domain/IndexDocument.js"
import type { ItemInputs } from "../../domain/ItemProjection.js"
import { foldDiacritics, normalize, stem, terms, tokenize, type QueryGroup } from "../../domain/Query.js"
import { passesFilters, qualifyRef, searchFields, TRIGRAM_CONTENT_CHARS, type ItemFilters, type SearchFields } from "../../domain/Search.js"
import { itemDiversity } from "../../domain/TextSignals.js"
import {
  IndexStore,
  type BundleIndexState,
  type BundleManifest,
  type Candidate,
  type CandidateSet,
  type DocumentSink,
  type IndexedItem,
  type ManifestInput,
  type PersistEnd,
  type PersistStreamed,
  type TypeSize
} from "../../services/IndexStore.js"

/** The SQLite layer's bm25 column weights, as MiniSearch field boosts. */
const BOOST = { name: 10, description: 5, tags: 3, hints: 2, content: 1 } as const
const FIELDS = Object.keys(BOOST) as ReadonlyArray<keyof typeof BOOST>
const SUBSTRING_WEIGHTS = [["name", 10], ["description", 5], ["tags", 3], ["content", 1]] as const

type Entry = { readonly ref: string } & SearchFields

interface Stored {
  readonly doc: IndexDocument
  readonly json: string
  readonly fields: SearchFields
  /** Fully qualified successor. */
  readonly supersededBy?: string | undefined
  /** Lexical diversity, as the SQLite layer measures it at index time (issue 25). */
  readonly diversity: number
}

const newIndex = () =>
  new MiniSearch<Entry>({
    idField: "ref",
    fields: [...FIELDS],
    tokenize: (text) => [...tokenize(text)],
    processTerm: (term) => stem(term),
    searchOptions: { boost: { ...BOOST }, combineWith: "OR" }
  })

/** Whether the stems of `phrase` occur next to each other in one field. */
const containsPhrase = (fields: SearchFields, phrase: ReadonlyArray<string>): boolean =>
  FIELDS.some((field) => {
    const words = terms(fields[field])
    for (let i = 0; i + phrase.length <= words.length; i++) if (phrase.every((s, j) => words[i + j] === s)) return true
    return false
  })

/**
 * IndexStore in memory on MiniSearch (BM25 with the SQLite layer's field
 * boosts, the same tokenizer and stemmer): the test layer, the layer an
 * embedding program can swap in, and later the improve sandbox. Same contract
 * as the SQLite layer (test/services/IndexStore.contract.ts).
 */
export const makeIndexStoreMiniSearch = Effect.sync(() => {
  const index = newIndex()
  const docs = new Map<string, Stored>()
  const manifests = new Map<string, BundleManifest>()
  const staleReasons = new Map<string, string>()
  /** Every bundle persisted or marked, as the SQLite layer keeps a `bundles` row for it. */
  const known = new Set<string>()
  const tokens = new Map<string, number>()
  const utilities = new Map<string, { readonly value: number; readonly at: string }>()
  /** Stored item inputs by ref (R-IDX-2), as JSON like the SQLite layer keeps them. */
  const inputsByRef = new Map<string, string>()
  let indexedAt: string | undefined
  const lease = Effect.unsafeMakeSemaphore(1)

  const itemOf = (stored: Stored): IndexedItem & { readonly scope?: Readonly<Record<string, string>> | undefined } => {
    const { doc } = stored
    return {
      ref: doc.ref,
      bundle: doc.bundle,
      conceptId: doc.conceptId,
      adapter: doc.adapter,
      type: doc.type,
      name: doc.name,
      description: doc.description,
      tags: doc.tags ?? [],
      aliases: doc.aliases ?? [],
      hints: doc.hints ?? [],
      quality: doc.quality,
      beliefState: doc.beliefState,
      supersededBy: stored.supersededBy,
      status: doc.status,
      staleAfter: doc.staleAfter,
      pinned: doc.pinned === true,
      editable: manifests.get(doc.bundle)?.writable === true,
      scope: doc.scope,
      path: doc.path,
      hash: doc.hash,
      bytes: doc.bytes,
      tokens: tokens.get(doc.hash),
      utility: utilities.get(doc.ref),
      diversity: stored.diversity
    }
  }
  const lookup = (ref: string) => {
    const stored = docs.get(ref)
    return stored === undefined ? undefined : itemOf(stored)
  }
  const passes = (stored: Stored, filters: ItemFilters) => passesFilters(itemOf(stored), filters, lookup)

  const diff = (bundle: string, incoming: ReadonlyArray<IndexDocument>, kept: ReadonlyArray<string> = []) => {
    const summary = { bundle, added: 0, updated: 0, removed: 0, unchanged: 0 }
    const writes: Array<Stored> = []
    const seen = new Set<string>()
    for (const ref of kept) {
      if (seen.has(ref) || docs.get(ref)?.doc.bundle !== bundle) continue
      seen.add(ref)
      summary.unchanged++
    }
    for (const doc of incoming) {
      if (seen.has(doc.ref)) continue
      seen.add(doc.ref)
      const json = JSON.stringify(doc)
      const before = docs.get(doc.ref)
      if (before?.json === json) {
        summary.unchanged++
        continue
      }
      if (before === undefined) summary.added++
      else summary.updated++
      const fields = searchFields(doc)
      writes.push({ doc, json, fields, diversity: itemDiversity(fields), ...(doc.supersededBy === undefined ? {} : { supersededBy: qualifyRef(doc.bundle, doc.supersededBy) }) })
    }
    const vanished = [...docs.values()].filter((s) => s.doc.bundle === bundle && !seen.has(s.doc.ref)).map((s) => s.doc.ref)
    summary.removed = vanished.length
    return { summary: summary satisfies PersistSummary, writes, vanished }
  }

  const remove = (ref: string) => {
    if (index.has(ref)) index.discard(ref)
    docs.delete(ref)
    inputsByRef.delete(ref)
  }
  const put = (stored: Stored) => {
    remove(stored.doc.ref)
    docs.set(stored.doc.ref, stored)
    index.add({ ref: stored.doc.ref, ...stored.fields })
  }

  const persist = (
    bundle: string,
    incoming: ReadonlyArray<IndexDocument>,
    manifest: ManifestInput | undefined,
    inputs: ReadonlyMap<string, string> = new Map(),
    kept: ReadonlyArray<string> = []
  ): PersistSummary => {
    const foreign = incoming.find((doc) => doc.bundle !== bundle)
    if (foreign !== undefined) throw new Error(`persist(${bundle}) got ${foreign.ref} of another bundle`)
    const plan = diff(bundle, incoming, kept)
    for (const ref of plan.vanished) remove(ref)
    for (const stored of plan.writes) put(stored)
    for (const [ref, json] of inputs) if (docs.has(ref)) inputsByRef.set(ref, json)
    staleReasons.delete(bundle)
    known.add(bundle)
    if (manifest !== undefined) manifests.set(bundle, { bundle, ...manifest })
    return plan.summary
  }

  /** The documents are held until the producer commits: this layer keeps everything in memory anyway, and a failure applies nothing. */
  const persistStreamed = <A, E, R>(
    bundle: string,
    produce: (sink: DocumentSink) => Effect.Effect<PersistEnd<A>, E, R>,
    options?: { readonly dryRun?: boolean | undefined }
  ): Effect.Effect<PersistStreamed<A>, E, R> =>
    Effect.gen(function* () {
      const pending: Array<IndexDocument> = []
      const pendingInputs = new Map<string, string>()
      const kept: Array<string> = []
      const end = yield* produce({
        write: (batch, inputs) =>
          Effect.sync(() => {
            const foreign = batch.find((doc) => doc.bundle !== bundle)
            if (foreign !== undefined) throw new Error(`persist(${bundle}) got ${foreign.ref} of another bundle`)
            pending.push(...batch)
            inputs?.forEach((given, i) => pendingInputs.set(batch[i]!.ref, JSON.stringify(given)))
          }),
        keep: (refs) => Effect.sync(() => void kept.push(...refs))
      })
      if (end._tag === "Discard") return { summary: undefined, value: end.value }
      const summary = options?.dryRun === true ? diff(bundle, pending, kept).summary : persist(bundle, pending, end.manifest, pendingInputs, kept)
      return { summary, value: end.value }
    })

  const groupQuery = (group: QueryGroup): Query =>
    group.phrase
      ? { combineWith: "AND", queries: [...group.tokens] }
      : group.alternatives.length === 0 ? group.tokens[0] ?? "" : { combineWith: "OR", queries: [group.tokens[0] ?? "", ...group.alternatives.map((a) => a.token)] }

  /** Whether a result contains the group: its stem(s) matched, and a phrase's stems are adjacent. */
  const containsGroup = (result: SearchResult, stored: Stored, group: QueryGroup, prefix: boolean): boolean => {
    const matched = (s: string) => result.queryTerms.includes(s) || (prefix && result.terms.some((t) => t.startsWith(s)))
    if (!group.phrase) return group.stems.every(matched) || group.alternatives.some((a) => matched(a.stem))
    return group.stems.every(matched) && containsPhrase(stored.fields, group.stems)
  }

  const wordCandidates = (groups: ReadonlyArray<QueryGroup>, prefix: boolean, filters: ItemFilters): Omit<CandidateSet, "documentCount"> => {
    const options = { prefix: (term: string) => prefix && [...term].length >= 3 }
    const results = index.search({ combineWith: "OR", queries: groups.map(groupQuery) }, options)
    const matches: Array<Candidate> = []
    for (const result of results) {
      const stored = docs.get(result.id as string)
      if (stored === undefined || !passes(stored, filters)) continue
      const matched = groups.map((g) => containsGroup(result, stored, g, prefix))
      if (matched.some(Boolean)) matches.push({ item: itemOf(stored), lexical: result.score, matched })
    }
    const documentFrequency = groups.map((g) =>
      index.search(groupQuery(g), options).filter((r) => !g.phrase || containsPhrase(docs.get(r.id as string)!.fields, g.stems)).length
    )
    return { candidates: matches, total: matches.length, documentFrequency }
  }

  const substringCandidates = (segments: ReadonlyArray<string>, filters: ItemFilters): Omit<CandidateSet, "documentCount"> => {
    const folded = segments.map((s) => foldDiacritics(normalize(s)))
    const text = (stored: Stored, field: (typeof SUBSTRING_WEIGHTS)[number][0]) =>
      foldDiacritics(normalize(field === "content" ? stored.fields.content.slice(0, TRIGRAM_CONTENT_CHARS) : stored.fields[field]))
    const documentFrequency = folded.map(() => 0)
    const matches: Array<Candidate> = []
    for (const stored of docs.values()) {
      let lexical = 0
      const matched = folded.map((segment, i) => {
        const hit = SUBSTRING_WEIGHTS.filter(([field]) => text(stored, field).includes(segment))
        lexical += hit.reduce((sum, [, weight]) => sum + weight, 0)
        if (hit.length > 0) documentFrequency[i]!++
        return hit.length > 0
      })
      if (matched.some(Boolean) && passes(stored, filters)) matches.push({ item: itemOf(stored), lexical, matched })
    }
    return { candidates: matches, total: matches.length, documentFrequency }
  }

  const byRank = (a: Candidate, b: Candidate) => b.lexical - a.lexical || (a.item.ref < b.item.ref ? -1 : a.item.ref > b.item.ref ? 1 : 0)
  const byRef = (a: { readonly ref: string }, b: { readonly ref: string }) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)

  return IndexStore.of({
    init: Effect.succeed({ path: ":memory:", migrations: [], integrity: "ok" }),
    persist: (bundle, incoming, manifest) => Effect.sync(() => persist(bundle, incoming, manifest)),
    diff: (bundle, incoming) => Effect.sync(() => diff(bundle, incoming).summary),
    persistStreamed,
    manifest: (bundle) =>
      Effect.sync(() => {
        const manifest = manifests.get(bundle)
        const reason = staleReasons.get(bundle)
        return manifest === undefined ? undefined : reason === undefined ? manifest : { ...manifest, staleReason: reason }
      }),
    itemInputs: (bundle) =>
      Effect.sync(() => {
        const found = new Map<string, ItemInputs>()
        for (const [ref, json] of inputsByRef) if (docs.get(ref)?.doc.bundle === bundle) found.set(ref, JSON.parse(json) as ItemInputs)
        return found
      }),
    markStale: (bundle, reason) =>
      Effect.sync(() => {
        known.add(bundle)
        staleReasons.set(bundle, reason)
      }),
    bundles: Effect.sync(() => {
      const names = known
      return [...names].sort().map((bundle): BundleIndexState => {
        const manifest = manifests.get(bundle)
        const reason = staleReasons.get(bundle)
        return {
          bundle,
          items: [...docs.values()].filter((s) => s.doc.bundle === bundle).length,
          ...(manifest === undefined ? {} : { adapter: manifest.adapter, indexedAt: manifest.indexedAt }),
          ...(manifest?.writable === undefined ? {} : { writable: manifest.writable }),
          ...(manifest?.diagnostics === undefined ? {} : { diagnostics: manifest.diagnostics }),
          ...(reason === undefined ? {} : { staleReason: reason })
        }
      })
    }),
    lastIndexed: Effect.sync(() => indexedAt),
    recordIndexRun: (at) => Effect.sync(() => void (indexedAt = at)),
    resolve: (ref) => Effect.sync(() => docs.get(ref)?.doc),
    has: (bundle, conceptId) => Effect.sync(() => docs.has(`${bundle}//${conceptId}`)),
    candidates: (query) =>
      Effect.sync(() => {
        const match = query.match
        const found =
          match._tag === "Words"
            ? match.groups.length === 0 ? { candidates: [], total: 0, documentFrequency: [] } : wordCandidates(match.groups, match.prefix, query.filters)
            : substringCandidates(match.segments, query.filters)
        if (found.candidates.length === 0) return { candidates: [], total: 0, documentCount: 0, documentFrequency: [] }
        return { ...found, candidates: [...found.candidates].sort(byRank).slice(0, query.limit), documentCount: docs.size }
      }),
    items: (refs, filters) =>
      Effect.sync(() => refs.flatMap((ref) => {
        const stored = docs.get(ref)
        return stored !== undefined && passes(stored, filters) ? [itemOf(stored)] : []
      })),
    excerpts: (refs, chars) =>
      Effect.sync(() => new Map(refs.flatMap((ref) => {
        const content = docs.get(ref)?.doc.content
        return content === undefined ? [] : [[ref, content.slice(0, chars)] as const]
      }))),
    browse: (query) =>
      Effect.sync(() => {
        const items = [...docs.values()]
          .filter((s) => (query.bundle === undefined || s.doc.bundle === query.bundle) && s.doc.conceptId.startsWith(query.prefix) && passes(s, query.filters))
          .map(itemOf)
          .sort(byRef)
        return { items: items.slice(0, query.limit), total: items.length }
      }),
    counts: Effect.sync(() => {
      const counts: Record<string, number> = {}
      for (const { doc } of docs.values()) counts[doc.bundle] = (counts[doc.bundle] ?? 0) + 1
      return counts
    }),
    typeSizes: (type) =>
      Effect.sync(() => {
        const sizes = new Map<string, TypeSize>()
        for (const { doc } of docs.values()) {
          if (doc.type !== type || doc.beliefState === "retired") continue
          const size = sizes.get(doc.bundle)
          sizes.set(doc.bundle, { bundle: doc.bundle, items: (size?.items ?? 0) + 1, bytes: (size?.bytes ?? 0) + doc.bytes })
        }
        return [...sizes.values()].sort((a, b) => (a.bundle < b.bundle ? -1 : a.bundle > b.bundle ? 1 : 0))
      }),
    removeBundle: (bundle) =>
      Effect.sync(() => {
        const refs = [...docs.values()].filter((s) => s.doc.bundle === bundle).map((s) => s.doc.ref)
        for (const ref of refs) remove(ref)
        manifests.delete(bundle)
        staleReasons.delete(bundle)
        known.delete(bundle)
        return refs.length
      }),
    renameBundle: (from, to) =>
      Effect.sync(() => {
        const moved = [...docs.values()].filter((s) => s.doc.bundle === from)
        // Stored inputs name the old refs: the next scan projects these items again (as the SQLite layer does).
        for (const stored of moved) {
          remove(stored.doc.ref)
          const doc = { ...stored.doc, bundle: to, ref: `${to}//${stored.doc.conceptId}` }
          put({ ...stored, doc, json: JSON.stringify(doc) })
        }
        const rekey = (ref: string) => (ref.startsWith(`${from}//`) ? `${to}//${ref.slice(from.length + 2)}` : ref)
        for (const [ref, stored] of docs) if (stored.supersededBy !== undefined) docs.set(ref, { ...stored, supersededBy: rekey(stored.supersededBy) })
        for (const [ref, utility] of [...utilities]) {
          utilities.delete(ref)
          utilities.set(rekey(ref), utility)
        }
        const manifest = manifests.get(from)
        if (manifest !== undefined) {
          manifests.delete(from)
          manifests.set(to, { ...manifest, bundle: to })
        }
        if (known.delete(from)) known.add(to)
        const reason = staleReasons.get(from)
        if (reason !== undefined) {
          staleReasons.delete(from)
          staleReasons.set(to, reason)
        }
      }),
    cachedTokens: (hash) => Effect.sync(() => tokens.get(hash)),
    storeTokens: (hash, n) => Effect.sync(() => void tokens.set(hash, n)),
    replaceUtilities: (values) =>
      Effect.sync(() => {
        utilities.clear()
        for (const [ref, utility] of values) utilities.set(ref, utility)
      }),
    updateUtility: (ref, value, at) => Effect.sync(() => void utilities.set(ref, { value, at })),
    retireOverlay: (entries) =>
      Effect.sync(() => {
        let n = 0
        for (const e of entries) {
          const stored = docs.get(e.ref)
          if (stored === undefined || stored.doc.hash !== e.hash) continue
          const doc = { ...stored.doc, beliefState: "retired" }
          docs.set(e.ref, { ...stored, doc, json: JSON.stringify(doc) })
          n++
        }
        return n
      }),
    withWriteLease: (effect) => lease.withPermits(1)(effect)
  })
})

export const IndexStoreMiniSearch = Layer.effect(IndexStore, makeIndexStoreMiniSearch)
