import { Effect, Either, Schema } from "effect"
import * as path from "node:path"
import type { BundleAdapter, BundleInfo, FileMeta, ItemPlan, LintItem, LintProjection, Projection } from "../domain/Adapter.js"
import { isWritable } from "../domain/Config.js"
import { compareDiagnostics, type Diagnostic } from "../domain/Diagnostic.js"
import { ConfigInvalid, WorkspaceUnavailable } from "../domain/Errors.js"
import { IndexDocument } from "../domain/IndexDocument.js"
import { validateConceptId } from "../domain/Ref.js"
import { Adapters } from "../services/Adapters.js"
import { BundleFiles, type WalkResult } from "../services/BundleFiles.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { bundleNotFound } from "./bundle/show.js"

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

const isIndexDocumentSchema = Schema.is(IndexDocument)

const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value)
const isString = (value: unknown): boolean => typeof value === "string"
const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every(isString)
const isOutline = (value: unknown): boolean =>
  Array.isArray(value) &&
  value.every((h: unknown) => typeof h === "object" && h !== null && Number.isSafeInteger((h as { depth?: unknown }).depth) && isString((h as { text?: unknown }).text) && isString((h as { slug?: unknown }).slug))

/**
 * Schema.is(IndexDocument), answered by hand for the usual shape: the generic
 * check costs more per item than some adapters' whole projection. Only a yes
 * is trusted; anything unusual (a `scope`, an odd value) goes to the schema.
 */
const isIndexDocument = (doc: Record<string, unknown>): boolean =>
  (isString(doc.ref) && isString(doc.bundle) && isString(doc.conceptId) && isString(doc.adapter) && isString(doc.path) && isStrings(doc.files) &&
    isString(doc.hash) && isString(doc.name) && Number.isSafeInteger(doc.bytes) && doc.scope === undefined &&
    optional(doc.type, isString) && optional(doc.description, isString) && optional(doc.tags, isStrings) && optional(doc.hints, isStrings) &&
    optional(doc.content, isString) && optional(doc.aliases, isStrings) && optional(doc.beliefState, isString) && optional(doc.supersededBy, isString) &&
    optional(doc.updated, isString) && optional(doc.status, isString) && optional(doc.staleAfter, isString) && optional(doc.links, isStrings) &&
    optional(doc.quality, (q) => q === "curated" || q === "generated" || q === "proposed") && optional(doc.pinned, (p) => typeof p === "boolean") &&
    optional(doc.tokens, Number.isSafeInteger) && optional(doc.outline, isOutline)) ||
  isIndexDocumentSchema(doc)

const defectMessage = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** A file the adapter could not read: too large, not UTF-8 text, vanished. */
const unreadableDiagnostic = (failure: { readonly path: string; readonly code: string; readonly message: string }, fallbackPath: string, ref: string): Diagnostic => ({
  code: failure.code === "too-large" ? "file-too-large" : failure.code === "invalid-encoding" || failure.code === "binary" ? "invalid-encoding" : "unreadable-file",
  severity: failure.code === "invalid-encoding" || failure.code === "binary" ? "error" : "warning",
  path: failure.path === "" ? fallbackPath : failure.path,
  message: `${failure.message}; the item is not indexed`,
  ref
})

const quoted = (p: string): string => JSON.stringify(p)

/**
 * R-REF-5 over the adapter's plans: a concept id claimed twice keeps the
 * adapter's first plan (`duplicate-concept-id`, naming both files); ids that
 * differ only by case are kept but flagged (`case-collision`). Plans with ids
 * that are not valid refs are dropped (`invalid-concept-id`).
 */
export const checkPlans = (bundle: string, plans: ReadonlyArray<ItemPlan>): { readonly kept: ReadonlyArray<ItemPlan>; readonly diagnostics: ReadonlyArray<Diagnostic> } => {
  const kept: Array<ItemPlan> = []
  const diagnostics: Array<Diagnostic> = []
  const byId = new Map<string, ItemPlan>()
  const byFolded = new Map<string, ItemPlan>()
  for (const plan of plans) {
    const primary = plan.files[0] ?? plan.conceptId
    const invalid = validateConceptId(plan.conceptId)
    if (Either.isLeft(invalid)) {
      diagnostics.push({ code: "invalid-concept-id", severity: "error", path: primary, message: `${quoted(plan.conceptId)} cannot be a ref: ${invalid.left.reason}; the item is not indexed` })
      continue
    }
    const first = byId.get(plan.conceptId)
    if (first !== undefined) {
      diagnostics.push({
        code: "duplicate-concept-id",
        severity: "error",
        path: primary,
        ref: `${bundle}//${plan.conceptId}`,
        message: `${primary} and ${first.files[0] ?? first.conceptId} both map to ${plan.conceptId}; ${first.files[0] ?? first.conceptId} is indexed, this file is not`
      })
      continue
    }
    byId.set(plan.conceptId, plan)
    const folded = plan.conceptId.normalize("NFC").toLowerCase()
    const twin = byFolded.get(folded)
    if (twin === undefined) byFolded.set(folded, plan)
    else {
      diagnostics.push({
        code: "case-collision",
        severity: "warning",
        path: primary,
        ref: `${bundle}//${plan.conceptId}`,
        message: `${plan.conceptId} and ${twin.conceptId} differ only by letter case; they collide on case-insensitive file systems`
      })
    }
    kept.push(plan)
  }
  return { kept, diagnostics }
}

/** Documents per batch a streamed scan hands on: what the index holds in memory at once (spec 10 §2). */
export const SCAN_BATCH = 32

/** A streamed scan: everything a ScanResult says but the documents, which went to the consumer. */
export interface ScanSummary extends Omit<ScanResult, "documents"> {
  /** Documents handed on. */
  readonly items: number
}

/**
 * What whole-bundle rules keep of a projection (LintProjection), so memory
 * stays bounded by a batch. Copied through JSON (the form the index stores
 * anyway): a string cut from a file's text (a heading, a link) keeps the
 * whole text alive in V8, and a scan keeps these until its end.
 */
const lintProjection = (projection: Projection): LintProjection => {
  const { content: _content, hints: _hints, description: _description, outline: _outline, ...rest } = projection
  return JSON.parse(JSON.stringify(rest)) as LintProjection
}

/** An item's finding as the scan keeps it until its end: its message copied, for the reason above. */
const retained = (diagnostic: Diagnostic, ref: string): Diagnostic => ({
  ...diagnostic,
  message: JSON.parse(JSON.stringify(diagnostic.message)) as string,
  ...(diagnostic.ref === undefined ? { ref } : {})
})

const byConceptId = (plans: ReadonlyArray<ItemPlan>) => (a: number, b: number): number =>
  plans[a]!.conceptId < plans[b]!.conceptId ? -1 : plans[a]!.conceptId > plans[b]!.conceptId ? 1 : 0

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
  emit: (documents: ReadonlyArray<IndexDocument>) => Effect.Effect<void, E, R>,
  batchSize: number = SCAN_BATCH
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

    const planned = yield* Effect.sync(() => adapter.plan(walked.files, info)).pipe(Effect.either, Effect.catchAllDefect((cause) => Effect.succeed(Either.left(cause))))
    if (Either.isLeft(planned)) {
      diagnostics.push({ code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter failed to plan the bundle: ${defectMessage(planned.left)}` })
      return summary(0, false)
    }
    diagnostics.push(...planned.right.diagnostics)
    const plans = checkPlans(info.name, planned.right.items)
    diagnostics.push(...plans.diagnostics)

    // Projected in ref order (refs share the bundle prefix, so concept-id order is
    // ref order) so batches stream out sorted; findings and lint items keep plan order.
    const kept = plans.kept
    const order = kept.map((_, i) => i).sort(byConceptId(kept))
    const found: Array<ReadonlyArray<Diagnostic> | undefined> = new Array(kept.length)
    const linted: Array<LintItem | undefined> = new Array(adapter.lintBundle === undefined ? 0 : kept.length)
    const refByPath = new Map<string, string>()
    let batch: Array<IndexDocument> = []
    let items = 0
    for (const i of order) {
      const plan = kept[i]!
      const ref = `${info.name}//${plan.conceptId}`
      const primary = plan.files[0] ?? plan.conceptId
      const outcome = yield* Effect.suspend(() => adapter.project(plan, ctx)).pipe(
        Effect.map((value) => ({ _tag: "ok" as const, value })),
        Effect.catchAll((failure) => Effect.succeed({ _tag: "unreadable" as const, failure })),
        Effect.catchAllDefect((cause) => Effect.succeed({ _tag: "died" as const, cause }))
      )
      if (outcome._tag === "unreadable") {
        found[i] = [unreadableDiagnostic(outcome.failure, primary, ref)]
        continue
      }
      if (outcome._tag === "died") {
        found[i] = [{ code: "adapter-failed", severity: "error", path: primary, ref, message: `the ${adapter.id} adapter failed on this item: ${defectMessage(outcome.cause)}; the item is not indexed` }]
        continue
      }
      const own = outcome.value.diagnostics.map((d) => retained(d, ref))
      found[i] = own
      const content = yield* Effect.either(files.hash(info.root, plan.files, ctx))
      if (Either.isLeft(content)) {
        found[i] = [...own, { code: "unreadable-file", severity: "warning", path: primary, ref, message: `${content.left.reason}; the item is not indexed` }]
        continue
      }
      const document = {
        ...outcome.value.projection,
        ref,
        bundle: info.name,
        conceptId: plan.conceptId,
        adapter: adapter.id,
        path: path.join(info.root, primary),
        files: plan.files.map((f) => path.join(info.root, f)),
        hash: content.right.hash,
        bytes: content.right.bytes
      }
      if (!isIndexDocument(document)) {
        found[i] = [...own, { code: "adapter-failed", severity: "error", path: primary, ref, message: `the ${adapter.id} adapter produced an invalid projection for this item; the item is not indexed` }]
        continue
      }
      items++
      batch.push(document)
      if (adapter.lintBundle !== undefined) {
        linted[i] = { plan, projection: lintProjection(outcome.value.projection) }
        refByPath.set(document.path, ref)
      }
      if (batch.length >= batchSize) {
        yield* emit(batch)
        batch = []
      }
    }
    if (batch.length > 0) yield* emit(batch)
    for (const own of found) if (own !== undefined) diagnostics.push(...own)

    if (adapter.lintBundle !== undefined) {
      const lintBundle = adapter.lintBundle
      const projected = linted.filter((item): item is LintItem => item !== undefined)
      const lint = yield* Effect.suspend(() => lintBundle(ctx, projected)).pipe(
        Effect.catchAllDefect((cause) =>
          Effect.succeed<ReadonlyArray<Diagnostic>>([{ code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter's bundle checks failed: ${defectMessage(cause)}` }])
        )
      )
      // Whole-bundle findings about an item's own file carry its ref, like per-item ones.
      diagnostics.push(...lint.map((d) => {
        const ref = d.ref ?? refByPath.get(path.join(info.root, d.path))
        return ref === undefined || d.ref !== undefined ? d : { ...d, ref }
      }))
    }
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
    return yield* new WorkspaceUnavailable({ path: name, reason: `bundle '${name}' is configured but not installed (no entry in akm.lock)`, hint: `add it again with \`akm bundle remove ${name}\` and \`akm bundle add\`` })
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
