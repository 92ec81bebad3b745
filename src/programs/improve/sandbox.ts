import { Effect, Either } from "effect"
import type { BundleAdapter, BundleInfo, FileMeta } from "../../domain/Adapter.js"
import type { FileChange } from "../../domain/FileChange.js"
import type { IndexDocument } from "../../domain/IndexDocument.js"
import { projectItem } from "../../domain/ItemProjection.js"
import { sha256Hex } from "../../domain/Proposal.js"
import type { BeliefFilter } from "../../domain/Search.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { IndexStore } from "../../services/IndexStore.js"
import { SandboxIndex } from "../../services/SandboxIndex.js"
import { searchIndexed } from "../searchIndexed.js"

/**
 * One run's frozen snapshot (R-IMP-5): the index documents and bundle walks
 * as they were when the run first needed them, and the baseline sandbox
 * built from them. Candidates of the run are compared with this, never with
 * output accepted during the run.
 */
export interface Snapshot {
  readonly docs: ReadonlyMap<string, IndexDocument>
  readonly baseline: IndexStore["Type"]
  readonly walks: Map<string, ReadonlyArray<FileMeta>>
  /** Ranks in the baseline, by belief and query (the baseline never changes within a run). */
  readonly baselineRanks: Map<string, ReadonlyArray<string>>
}

const ALL = { belief: "all", includeProposed: true } as const

const byBundle = (docs: Iterable<IndexDocument>): Map<string, Array<IndexDocument>> => {
  const by = new Map<string, Array<IndexDocument>>()
  for (const doc of docs) by.set(doc.bundle, [...(by.get(doc.bundle) ?? []), doc])
  return by
}

const fill = (store: IndexStore["Type"], docs: Iterable<IndexDocument>) =>
  Effect.forEach(byBundle(docs), ([bundle, own]) => store.persist(bundle, own), { discard: true })

/** Reads every indexed document once (the index as it is at the start of the run) into a baseline sandbox. */
export const takeSnapshot = Effect.fn("improve.snapshot")(function* () {
  const index = yield* IndexStore
  const sandbox = yield* SandboxIndex
  const listed = yield* index.browse({ prefix: "", filters: ALL, limit: Number.MAX_SAFE_INTEGER })
  const docs = new Map<string, IndexDocument>()
  for (const item of listed.items) {
    const doc = yield* index.resolve(item.ref)
    if (doc !== undefined) docs.set(doc.ref, doc)
  }
  const baseline = yield* sandbox.make
  yield* fill(baseline, docs.values())
  return { docs, baseline, walks: new Map(), baselineRanks: new Map() } satisfies Snapshot as Snapshot
})

/** The bundle's file list as the snapshot walked it (once per run). */
const walkOf = (snapshot: Snapshot, info: BundleInfo, adapter: BundleAdapter) =>
  Effect.gen(function* () {
    const known = snapshot.walks.get(info.name)
    if (known !== undefined) return known
    const walked = yield* (yield* BundleFiles).walk(info.root, { includeHidden: adapter.includeHidden ?? false })
    snapshot.walks.set(info.name, walked.files)
    return walked.files
  })

/**
 * The index documents of the items a change set touches, projected by the
 * bundle's adapter on the overlay (the snapshot plus the changes): what the
 * index would hold for them if the candidate were applied.
 */
export const projectCandidate = (snapshot: Snapshot, info: BundleInfo, adapter: BundleAdapter, changes: ReadonlyArray<FileChange>) =>
  Effect.gen(function* () {
    const files = yield* BundleFiles
    const listing = yield* walkOf(snapshot, info, adapter)
    const ctx = files.context(info, listing, changes)
    const planned = yield* Effect.either(Effect.try(() => adapter.plan(ctx.files, info)))
    if (Either.isLeft(planned)) return []
    const changed = new Set(changes.map((c) => c.path))
    const hashFiles = (paths: ReadonlyArray<string>) =>
      Effect.map(Effect.forEach(paths, (p) => ctx.readText(p)), (texts) => ({ hash: sha256Hex(texts), bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0) })).pipe(
        Effect.mapError((e) => ({ reason: e.message }))
      )
    const docs: Array<IndexDocument> = []
    for (const [i, plan] of planned.right.items.entries()) {
      if (!plan.files.some((f) => changed.has(f))) continue
      const projected = yield* projectItem(info, adapter, ctx, hashFiles, plan, i)
      if (projected.document !== undefined) docs.push(projected.document)
    }
    return docs
  })

/** A sandbox holding the snapshot with `replaced` documents swapped in (and `removed` refs gone). */
export const candidateIndex = (snapshot: Snapshot, replaced: ReadonlyArray<IndexDocument>, removed: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const store = yield* (yield* SandboxIndex).make
    const docs = new Map(snapshot.docs)
    for (const ref of removed) docs.delete(ref)
    for (const doc of replaced) docs.set(doc.ref, doc)
    yield* fill(store, docs.values())
    return store
  })

/** The refs a query returns in a sandbox, best first (`depth` of them); a query the search refuses returns none. */
export const sandboxSearch = (store: IndexStore["Type"], query: string, depth: number, belief: BeliefFilter) =>
  searchIndexed({ query, limit: depth, track: false, belief, includeProposed: true }, 0n).pipe(
    Effect.provideService(IndexStore, store),
    Effect.map((result) => result.hits.map((h) => h.ref)),
    Effect.catchAll(() => Effect.succeed<ReadonlyArray<string>>([]))
  )

/** `sandboxSearch` on the baseline, computed once per query and belief per run. */
export const baselineSearch = (snapshot: Snapshot, query: string, depth: number, belief: BeliefFilter) =>
  Effect.gen(function* () {
    const key = `${belief}\u0000${depth}\u0000${query}`
    const known = snapshot.baselineRanks.get(key)
    if (known !== undefined) return known
    const refs = yield* sandboxSearch(snapshot.baseline, query, depth, belief)
    snapshot.baselineRanks.set(key, refs)
    return refs
  })

/** 1-based rank of `ref` in a result list, 0 when absent. */
export const rankIn = (refs: ReadonlyArray<string>, ref: string): number => refs.indexOf(ref) + 1
