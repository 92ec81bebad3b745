import { Effect, Either } from "effect"
import type { BundleAdapter, BundleInfo, FileMeta, ItemPlan, LintItem } from "../domain/Adapter.js"
import { isWritable } from "../domain/Config.js"
import { compareDiagnostics, type Diagnostic } from "../domain/Diagnostic.js"
import type { DiagnosticCounts } from "../services/IndexStore.js"
import { sliceEnds, yieldIfSpent } from "../domain/EventLoopSlice.js"
import { ConfigInvalid, WorkspaceUnavailable } from "../domain/Errors.js"
import type { IndexDocument } from "../domain/IndexDocument.js"
import { readLint, storedLint, type ItemInputs, type ProjectedItem } from "../domain/ItemProjection.js"
import { planChecked } from "../domain/PlanChecks.js"
import { Adapters } from "../services/Adapters.js"
import { BundleFiles, type WalkResult } from "../services/BundleFiles.js"
import { ItemProjector, type ProjectionJob } from "../services/ItemProjector.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { bundleNotFound } from "./bundle/show.js"
import { shellCommand } from "../domain/ShellQuote.js"

/** What one scan of a bundle root found. Identical trees give deep-equal results (R-AD-2). */
export interface ScanResult {
  readonly bundle: string
  readonly adapter: string
  readonly adapterVersion: string
  readonly root: string
  readonly writable: boolean
  /** One per item, sorted by ref. */
  readonly documents: ReadonlyArray<IndexDocument>
  /** Walk, plan, item, collision and whole-bundle findings, in compareDiagnostics order. */
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** Every file the walk listed. */
  readonly files: ReadonlyArray<FileMeta>
  /**
   * False when the adapter failed the whole scan (its plan died): the caller keeps
   * the bundle's previous index rows and marks them stale (R-AD-8).
   */
  readonly complete: boolean
}

const defectMessage = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

export { checkPlans } from "../domain/PlanChecks.js"

/** How an incremental scan keeps items unread (R-IDX-2). */
export interface ScanReuse<E, R> {
  /** The stored inputs of an item that may be kept as it is, or undefined to project it again. */
  readonly reusable: (plan: ItemPlan, ref: string) => ItemInputs | undefined
  /** Tells the consumer which refs were kept (they are not handed to `emit`). */
  readonly keep: (refs: ReadonlyArray<string>) => Effect.Effect<void, E, R>
  /**
   * The bundle's findings as a write's validation counted them (decision
   * 0061): taken, and no finding of a kept item gathered nor whole-bundle
   * rule run, when every projected item was indexed and `confirm` holds for
   * the files they read (each as the listing has it); else the scan counts.
   */
  readonly counted?: {
    readonly counts: DiagnosticCounts
    readonly confirm: (read: ReadonlyArray<string>) => Effect.Effect<boolean>
  } | undefined
}

/**
 * Documents per batch a streamed scan hands on: what the index holds in
 * memory at once (spec 10 §2). Small, so a batch is written before V8
 * promotes it (16 with 32 full-text rows: 265 MB at 20,000 items; 32 with 64:
 * 302 MB). Since full-text rows wait in SQLite and V8's heap growth is bound
 * for large jobs, 64 costs ≈ 3 MB at 20,000 items and saves ≈ 7 % of a
 * build's CPU in fewer, larger statements (docs/decisions/0050-index-build-speed.md).
 */
export const SCAN_BATCH = 64

/** A streamed scan: everything a ScanResult says but the documents, which went to the consumer. */
export interface ScanSummary extends Omit<ScanResult, "documents"> {
  /** Documents handed on. */
  readonly items: number
  /** Set when the findings were counted by the write's validation (ScanReuse.counted): `diagnostics` then holds the walk's and the plan's only. */
  readonly counts?: DiagnosticCounts | undefined
}

const byConceptId = (plans: ReadonlyArray<ItemPlan>) => (a: number, b: number): number =>
  plans[a]!.conceptId < plans[b]!.conceptId ? -1 : plans[a]!.conceptId > plans[b]!.conceptId ? 1 : 0

/**
 * The refs of kept items (their lint item is stored inputs, not projected
 * text) whose file a whole-bundle finding names without a ref, by path; the
 * later in ref order wins, as in a map filled in that order. Only the paths
 * findings name are looked for: a refresh keeps 20,000 items and used to
 * map every one's path.
 */
const keptRefByPath = (
  lint: ReadonlyArray<Diagnostic>,
  linted: ReadonlyArray<string | ItemInputs | undefined>,
  order: ReadonlyArray<number>,
  plans: ReadonlyArray<ItemPlan>,
  bundle: string,
  projected: ReadonlyMap<string, string>
): ReadonlyMap<string, string> => {
  const wanted = new Set<string>()
  for (const d of lint) if (d.ref === undefined && !projected.has(d.path)) wanted.add(d.path)
  const refs = new Map<string, string>()
  if (wanted.size === 0) return refs
  for (const i of order) {
    const stored = linted[i]
    if (stored === undefined || typeof stored === "string") continue
    const plan = plans[i]!
    const primary = plan.files[0] ?? plan.conceptId
    if (wanted.has(primary)) refs.set(primary, `${bundle}//${plan.conceptId}`)
  }
  return refs
}

/**
 * Scans one bundle root with one adapter over a walk already taken: plan →
 * project each item (one bad item is a diagnostic, the rest continues,
 * R-AD-8) → R-REF-5 checks → the adapter's whole-bundle lint. Documents go to
 * `emit` sorted by ref, `batchSize` at a time, and are not kept: only what
 * the lint needs stays until the end. Reads only; never writes (R-AD-7).
 */
export const scanStreamed = <E, R>(
  info: BundleInfo,
  adapter: BundleAdapter,
  walked: WalkResult,
  emit: (documents: ReadonlyArray<IndexDocument>, inputs: ReadonlyArray<ItemInputs>) => Effect.Effect<void, E, R>,
  batchSize: number = SCAN_BATCH,
  reuse?: ScanReuse<E, R>
) =>
  Effect.gen(function* () {
    const files = yield* BundleFiles
    const ctx = files.context(info, walked.files)
    const diagnostics: Array<Diagnostic> = [...walked.diagnostics]
    const summary = (items: number, complete: boolean): ScanSummary => ({
      bundle: info.name,
      adapter: adapter.id,
      adapterVersion: adapter.version,
      root: info.root,
      writable: info.writable,
      items,
      diagnostics: diagnostics.sort(compareDiagnostics),
      files: walked.files,
      complete
    })

    // A write's refresh plans the tree its validation just planned (decision 0032).
    const planned = yield* Effect.sync(() => planChecked(info, adapter, walked.files)).pipe(Effect.either, Effect.catchAllDefect((cause) => Effect.succeed(Either.left(cause))))
    if (Either.isLeft(planned)) {
      diagnostics.push({ code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter failed to plan the bundle: ${defectMessage(planned.left)}` })
      return summary(0, false)
    }
    diagnostics.push(...planned.right.planned.diagnostics)
    const plans = planned.right.checked
    diagnostics.push(...plans.diagnostics)

    // Projected in ref order (refs share the bundle prefix, so concept-id order is
    // ref order) so batches stream out sorted; findings and lint items keep plan order.
    const kept = plans.kept
    const order = kept.map((_, i) => i).sort(byConceptId(kept))
    const found: Array<ReadonlyArray<Diagnostic> | undefined> = new Array(kept.length)
    // Lint projections as JSON text until the rules run (see readLint); a kept item's as its stored inputs, parsed once per process.
    const linted: Array<string | ItemInputs | undefined> = new Array(adapter.lintBundle === undefined ? 0 : kept.length)
    // Projected items' refs by bundle-relative path, as whole-bundle findings name files (kept items': keptRefByPath).
    const refByPath = new Map<string, string>()
    let items = 0
    let batch: Array<IndexDocument> = []
    let batchInputs: Array<ItemInputs> = []
    // Items whose stored inputs are all unchanged keep their rows unread (R-IDX-2); what the scan keeps of them comes from the store.
    const keptRefs: Array<string> = []
    const projectOrder: Array<number> = []
    // What the projected items read, for the validation's counts to be confirmed against (ScanReuse.counted).
    const projectedReads: Array<string> = []
    let unindexed = false
    for (const [n, i] of order.entries()) {
      // A refresh after one write passes over every item: the event loop turns between slices (decision 0048).
      if (sliceEnds(n)) yield* yieldIfSpent
      const plan = kept[i]!
      const ref = `${info.name}//${plan.conceptId}`
      const stored = reuse?.reusable(plan, ref)
      if (stored === undefined) {
        projectOrder.push(i)
        continue
      }
      keptRefs.push(ref)
      items++
      found[i] = stored.diagnostics
      // A kept item's ref is looked up by path only when a bundle finding names its file (keptRefByPath).
      if (adapter.lintBundle !== undefined && stored.lint !== undefined) linted[i] = stored
    }
    if (reuse !== undefined && keptRefs.length > 0) yield* reuse.keep(keptRefs)
    const job: ProjectionJob = { info, adapter, walked, ctx, plans: kept, order: projectOrder, batchSize }
    // Documents go on in batches of exactly batchSize, however many items a projector's batch left out.
    const take = (projected: ReadonlyArray<ProjectedItem>) =>
      Effect.suspend(() => {
        const full: Array<readonly [ReadonlyArray<IndexDocument>, ReadonlyArray<ItemInputs>]> = []
        for (const item of projected) {
          found[item.index] = item.diagnostics
          if (reuse?.counted !== undefined && item.inputs !== undefined) projectedReads.push(...item.inputs.read)
          if (item.document === undefined) {
            unindexed = true
            continue
          }
          items++
          batch.push(item.document)
          batchInputs.push(item.inputs!)
          if (item.lint !== undefined) {
            linted[item.index] = item.lint
            refByPath.set(kept[item.index]!.files[0] ?? kept[item.index]!.conceptId, item.document.ref)
          }
          if (batch.length >= batchSize) {
            full.push([batch, batchInputs])
            batch = []
            batchInputs = []
          }
        }
        return Effect.forEach(full, ([documents, inputs]) => emit(documents, inputs), { discard: true })
      })
    yield* (yield* ItemProjector).run(job, take)
    if (batch.length > 0) yield* emit(batch, batchInputs)
    // A write's refresh: the validation counted the findings of this very tree (the kept items' are the index run's).
    const counted = reuse?.counted
    if (counted !== undefined && !unindexed && (yield* counted.confirm(projectedReads))) return { ...summary(items, true), counts: counted.counts }
    for (let i = 0; i < found.length; i++) {
      if (sliceEnds(i, 256)) yield* yieldIfSpent
      const own = found[i]
      if (own !== undefined) diagnostics.push(...own)
    }

    if (adapter.lintBundle !== undefined) {
      const lintBundle = adapter.lintBundle
      const projected: Array<LintItem> = []
      // Parsing every item's lint projection is a pass over the bundle: the loop turns between slices (decision 0053).
      for (let i = 0; i < linted.length; i++) {
        if (sliceEnds(i)) yield* yieldIfSpent
        const text = linted[i]
        if (typeof text === "string") projected.push(readLint(kept[i]!, text))
        else if (text?.lint !== undefined) projected.push(storedLint(text, text.lint))
      }
      const lint = yield* Effect.suspend(() => lintBundle(ctx, projected)).pipe(
        Effect.catchAllDefect((cause) =>
          Effect.succeed<ReadonlyArray<Diagnostic>>([{ code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter's bundle checks failed: ${defectMessage(cause)}` }])
        )
      )
      // Whole-bundle findings about an item's own file carry its ref, like per-item ones: a projected item's, else a kept one's.
      const keptByPath = keptRefByPath(lint, linted, order, kept, info.name, refByPath)
      diagnostics.push(...lint.map((d) => {
        const ref = d.ref ?? refByPath.get(d.path) ?? keptByPath.get(d.path)
        return ref === undefined || d.ref !== undefined ? d : { ...d, ref }
      }))
    }
    // The summary sorts every finding of the bundle: a slice of its own when this one is spent.
    yield* yieldIfSpent
    return summary(items, true)
  })

/**
 * Scans one bundle root with one adapter: walk, then scanStreamed with every
 * document collected (sorted by ref). Reads only; never writes (R-AD-7).
 */
export const scanWith = (info: BundleInfo, adapter: BundleAdapter) =>
  Effect.gen(function* () {
    const files = yield* BundleFiles
    const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
    const documents: Array<IndexDocument> = []
    const scan = yield* scanStreamed(info, adapter, walked, (batch) => Effect.sync(() => void documents.push(...batch)))
    return {
      bundle: scan.bundle,
      adapter: scan.adapter,
      adapterVersion: scan.adapterVersion,
      root: scan.root,
      writable: scan.writable,
      documents,
      diagnostics: scan.diagnostics,
      files: scan.files,
      complete: scan.complete
    } satisfies ScanResult
  })

/** Where a configured bundle lives and which adapter reads it (from config and akm.lock; never re-guessed, R-WS-7). */
export const resolveBundle = Effect.fn("scan.resolve")(function* (name: string) {
  const workspace = yield* WorkspaceConfig
  const adapters = yield* Adapters
  const config = yield* workspace.read
  const bundle = config.bundles[name]
  if (bundle === undefined) return yield* bundleNotFound(name, Object.keys(config.bundles))
  const locked = (yield* workspace.readLock).bundles[name]
  const root = locked?.root ?? (bundle.source.kind === "filesystem" ? bundle.source.path : undefined)
  if (root === undefined) {
    return yield* new WorkspaceUnavailable({ path: name, reason: `bundle '${name}' is configured but not installed (no entry in akm.lock)`, hint: `add it again with \`${shellCommand("akm bundle remove", name)}\` and \`akm bundle add\`` })
  }
  const id = bundle.adapter ?? locked?.adapter.id ?? (yield* adapters.detect(root)).id
  const adapter = adapters.adapter(id)
  if (adapter === undefined) {
    return yield* new ConfigInvalid({
      file: workspace.paths.configFile,
      path: `bundles.${name}.adapter`,
      reason: `unknown adapter '${id}'`,
      hint: `known adapters: ${adapters.list.map((a) => a.id).join(", ")}`
    })
  }
  return { info: { name, root, writable: isWritable(bundle) } satisfies BundleInfo, adapter }
})

/** `scanBundle`: scan a configured bundle by name. */
export const scanBundle = Effect.fn("scan.bundle")(function* (name: string) {
  const { info, adapter } = yield* resolveBundle(name)
  return yield* scanWith(info, adapter)
})
