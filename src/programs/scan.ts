import { Effect, Either, Schema } from "effect"
import * as path from "node:path"
import type { BundleAdapter, BundleInfo, FileMeta, ItemPlan, Projection } from "../domain/Adapter.js"
import { isWritable } from "../domain/Config.js"
import { compareDiagnostics, type Diagnostic } from "../domain/Diagnostic.js"
import { ConfigInvalid, WorkspaceUnavailable } from "../domain/Errors.js"
import { IndexDocument } from "../domain/IndexDocument.js"
import { validateConceptId } from "../domain/Ref.js"
import { Adapters } from "../services/Adapters.js"
import { BundleFiles } from "../services/BundleFiles.js"
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

const isIndexDocument = Schema.is(IndexDocument)

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

/**
 * Scans one bundle root with one adapter: walk → plan → project each item
 * (one bad item is a diagnostic, the rest continues, R-AD-8) → R-REF-5 checks
 * → the adapter's whole-bundle lint. Reads only; never writes (R-AD-7).
 */
export const scanWith = (info: BundleInfo, adapter: BundleAdapter) =>
  Effect.gen(function* () {
    const files = yield* BundleFiles
    const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
    const ctx = files.context(info, walked.files)
    const diagnostics: Array<Diagnostic> = [...walked.diagnostics]
    const result = (documents: ReadonlyArray<IndexDocument>, complete: boolean): ScanResult => ({
      bundle: info.name,
      adapter: adapter.id,
      adapterVersion: adapter.version,
      root: info.root,
      writable: info.writable,
      documents: [...documents].sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)),
      diagnostics: diagnostics.sort(compareDiagnostics),
      files: walked.files,
      complete
    })

    const planned = yield* Effect.sync(() => adapter.plan(walked.files, info)).pipe(Effect.either, Effect.catchAllDefect((cause) => Effect.succeed(Either.left(cause))))
    if (Either.isLeft(planned)) {
      diagnostics.push({ code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter failed to plan the bundle: ${defectMessage(planned.left)}` })
      return result([], false)
    }
    diagnostics.push(...planned.right.diagnostics)
    const checked = checkPlans(info.name, planned.right.items)
    diagnostics.push(...checked.diagnostics)

    const documents: Array<IndexDocument> = []
    const projected: Array<{ readonly plan: ItemPlan; readonly projection: Projection }> = []
    for (const plan of checked.kept) {
      const ref = `${info.name}//${plan.conceptId}`
      const primary = plan.files[0] ?? plan.conceptId
      const outcome = yield* Effect.suspend(() => adapter.project(plan, ctx)).pipe(
        Effect.map((value) => ({ _tag: "ok" as const, value })),
        Effect.catchAll((failure) => Effect.succeed({ _tag: "unreadable" as const, failure })),
        Effect.catchAllDefect((cause) => Effect.succeed({ _tag: "died" as const, cause }))
      )
      if (outcome._tag === "unreadable") {
        diagnostics.push(unreadableDiagnostic(outcome.failure, primary, ref))
        continue
      }
      if (outcome._tag === "died") {
        diagnostics.push({ code: "adapter-failed", severity: "error", path: primary, ref, message: `the ${adapter.id} adapter failed on this item: ${defectMessage(outcome.cause)}; the item is not indexed` })
        continue
      }
      diagnostics.push(...outcome.value.diagnostics.map((d) => (d.ref === undefined ? { ...d, ref } : d)))
      const content = yield* Effect.either(files.hash(info.root, plan.files, ctx))
      if (Either.isLeft(content)) {
        diagnostics.push({ code: "unreadable-file", severity: "warning", path: primary, ref, message: `${content.left.reason}; the item is not indexed` })
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
        diagnostics.push({ code: "adapter-failed", severity: "error", path: primary, ref, message: `the ${adapter.id} adapter produced an invalid projection for this item; the item is not indexed` })
        continue
      }
      documents.push(document)
      projected.push({ plan, projection: outcome.value.projection })
    }

    if (adapter.lintBundle !== undefined) {
      const lintBundle = adapter.lintBundle
      const found = yield* Effect.suspend(() => lintBundle(ctx, projected)).pipe(
        Effect.catchAllDefect((cause) =>
          Effect.succeed<ReadonlyArray<Diagnostic>>([{ code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter's bundle checks failed: ${defectMessage(cause)}` }])
        )
      )
      // Whole-bundle findings about an item's own file carry its ref, like per-item ones.
      const refByPath = new Map(documents.map((d) => [d.path, d.ref] as const))
      diagnostics.push(...found.map((d) => {
        const ref = d.ref ?? refByPath.get(path.join(info.root, d.path))
        return ref === undefined || d.ref !== undefined ? d : { ...d, ref }
      }))
    }
    return result(documents, true)
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
