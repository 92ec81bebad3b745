import { Effect, Schema } from "effect"
import * as path from "node:path"
import type { BundleAdapter, BundleInfo, ItemPlan, LintItem, LintProjection, Projection, ValidateContext } from "./Adapter.js"
import type { Diagnostic } from "./Diagnostic.js"
import { IndexDocument } from "./IndexDocument.js"

/**
 * What a later scan needs to keep an item without reading it again (R-IDX-2):
 * the plan it came from, every bundle file its projection read or asked
 * about, whether it looked at the whole file list, and what the scan kept of
 * it (its own findings, its lint projection). Stored with the item's row.
 */
export interface ItemInputs {
  readonly plan: ItemPlan
  /** Bundle-relative paths the projection read or probed (its own files first), sorted. */
  readonly read: ReadonlyArray<string>
  /** The projection looked at the whole file list: a file added or removed anywhere may change it. */
  readonly listing: boolean
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** What whole-bundle rules see of the item (when the adapter has them): its LintProjection as JSON. */
  readonly lint?: string | undefined
}

/**
 * One item of a scan, projected: what the index stores (`document`), the
 * item's own findings, and what whole-bundle rules keep of it (`lint`).
 * Plain data, so it crosses a worker boundary as a structured clone.
 */
export interface ProjectedItem {
  /** The plan's position in the scan's kept plans. */
  readonly index: number
  /** Undefined when the item is not indexed (unreadable, adapter failure); `diagnostics` say why. */
  readonly document?: IndexDocument | undefined
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** Present when the adapter has whole-bundle rules and the item was indexed: its LintProjection as JSON (see lintText). */
  readonly lint?: string | undefined
  /** Present when the item was indexed. */
  readonly inputs?: ItemInputs | undefined
}

/** Hashes an item's files (bytes the context already read are not read again). */
export type HashFiles = (paths: ReadonlyArray<string>) => Effect.Effect<{ readonly hash: string; readonly bytes: number }, { readonly reason: string }>

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

/**
 * What whole-bundle rules keep of a projection (LintProjection), as JSON text
 * until the rules run: a scan keeps one per item until its end, and one flat
 * string costs a fraction of the object tree in V8's heap (spec 10 §2
 * memory); it also holds no slice of a file's text, which would keep the
 * whole text alive. Read back with readLint.
 */
const lintText = (projection: Projection, keyLines: Readonly<Record<string, number>> | undefined): string => {
  const { content: _content, hints: _hints, description: _description, outline: _outline, ...rest } = projection
  return JSON.stringify(keyLines === undefined ? rest : { ...rest, keyLines })
}

/** A kept lint projection as the whole-bundle rules see it. */
export const readLint = (plan: ItemPlan, text: string): LintItem => ({ plan, projection: JSON.parse(text) as LintProjection })

/** Parsed once per stored item: a write's validation (both trees, evaluation and engine) and its index refresh share it. */
const lintOfStored = new WeakMap<ItemInputs, LintItem>()

/** The lint item of an item kept from the index: `text` is its stored inputs' lint projection. */
export const storedLint = (stored: ItemInputs, text: string): LintItem => {
  let item = lintOfStored.get(stored)
  if (item === undefined) {
    item = readLint(stored.plan, text)
    lintOfStored.set(stored, item)
  }
  return item
}

/** An item's finding as the scan keeps it until its end: its message copied, for the reason above. */
const retained = (diagnostic: Diagnostic, ref: string): Diagnostic => ({
  ...diagnostic,
  message: JSON.parse(JSON.stringify(diagnostic.message)) as string,
  ...(diagnostic.ref === undefined ? { ref } : {})
})

/** A context that records which files a projection reads or probes, and whether it looks at the whole list. */
const tracking = (ctx: ValidateContext, own: ReadonlyArray<string>) => {
  const read = new Set<string>(own)
  const seen = { listing: false }
  const tracked: ValidateContext = {
    bundle: ctx.bundle,
    get files() {
      seen.listing = true
      return ctx.files
    },
    exists: (p) => {
      read.add(path.posix.normalize(p))
      return ctx.exists(p)
    },
    readText: (p) => {
      read.add(path.posix.normalize(p))
      return ctx.readText(p)
    },
    // A directory probe is recorded as "dir/": adding or removing a file below it dirties that (ItemReuse).
    ...(ctx.isDirectory === undefined ? {} : {
      isDirectory: (p: string) => {
        read.add(`${path.posix.normalize(p).replace(/\/+$/, "")}/`)
        return ctx.isDirectory!(p)
      }
    }),
    ...(ctx.filesUnder === undefined ? {} : {
      filesUnder: (dir: string) => {
        read.add(`${path.posix.normalize(dir).replace(/\/+$/, "")}/`)
        return ctx.filesUnder!(dir)
      }
    }),
    ...(ctx.linkTarget === undefined ? {} : {
      linkTarget: (p: string) => {
        read.add(path.posix.normalize(p))
        return ctx.linkTarget!(p)
      }
    })
  }
  return { tracked, inputs: () => ({ read: [...read].sort(), listing: seen.listing }) }
}

/**
 * Projects one planned item (R-AD-8: a bad item is a diagnostic, never a
 * failed scan): the adapter's projection, the content hash of its files, the
 * index document with its ref and absolute paths, checked against the
 * IndexDocument shape. Never fails.
 */
export const projectItem = (info: BundleInfo, adapter: BundleAdapter, ctx: ValidateContext, hashFiles: HashFiles, plan: ItemPlan, index: number): Effect.Effect<ProjectedItem> => {
  const ref = `${info.name}//${plan.conceptId}`
  const primary = plan.files[0] ?? plan.conceptId
  const { tracked, inputs } = tracking(ctx, plan.files)
  return Effect.suspend(() => adapter.project(plan, tracked)).pipe(
    Effect.map((value) => ({ _tag: "ok" as const, value })),
    Effect.catchAll((failure) => Effect.succeed({ _tag: "unreadable" as const, failure })),
    Effect.catchAllDefect((cause) => Effect.succeed({ _tag: "died" as const, cause })),
    Effect.flatMap((outcome): Effect.Effect<ProjectedItem> => {
      if (outcome._tag === "unreadable") return Effect.succeed({ index, diagnostics: [unreadableDiagnostic(outcome.failure, primary, ref)] })
      if (outcome._tag === "died") {
        return Effect.succeed({
          index,
          diagnostics: [{ code: "adapter-failed", severity: "error", path: primary, ref, message: `the ${adapter.id} adapter failed on this item: ${defectMessage(outcome.cause)}; the item is not indexed` }]
        })
      }
      const own = outcome.value.diagnostics.map((d) => retained(d, ref))
      return Effect.map(Effect.either(hashFiles(plan.files)), (content): ProjectedItem => {
        if (content._tag === "Left") {
          return { index, diagnostics: [...own, { code: "unreadable-file", severity: "warning", path: primary, ref, message: `${content.left.reason}; the item is not indexed` }] }
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
          return { index, diagnostics: [...own, { code: "adapter-failed", severity: "error", path: primary, ref, message: `the ${adapter.id} adapter produced an invalid projection for this item; the item is not indexed` }] }
        }
        const lint = adapter.lintBundle === undefined ? undefined : lintText(outcome.value.projection, outcome.value.lintLines)
        return { index, document, diagnostics: own, lint, inputs: { plan, ...inputs(), diagnostics: own, lint } }
      })
    })
  )
}

/**
 * Projects `order`'s plans one after another, handing results on in that
 * order, `batchSize` at a time: the in-process projector, and what a worker
 * does with its share.
 */
export const projectSequentially = <E, R>(
  info: BundleInfo,
  adapter: BundleAdapter,
  ctx: ValidateContext,
  hashFiles: HashFiles,
  plans: ReadonlyArray<ItemPlan>,
  order: ReadonlyArray<number>,
  batchSize: number,
  emit: (items: ReadonlyArray<ProjectedItem>) => Effect.Effect<void, E, R>
): Effect.Effect<void, E, R> =>
  Effect.suspend(() => {
    let at = 0
    const next: Effect.Effect<void, E, R> = Effect.suspend(() => {
      if (at >= order.length) return Effect.void
      const slice = order.slice(at, at + batchSize)
      at += slice.length
      return Effect.flatMap(Effect.forEach(slice, (i) => projectItem(info, adapter, ctx, hashFiles, plans[i]!, i)), (items) => Effect.zipRight(emit(items), next))
    })
    return next
  })
