import { createHash } from "node:crypto"
import { Effect, Either, Layer } from "effect"
import type { BundleAdapter, BundleInfo, FileMeta, ItemPlan, LintItem, ValidateContext } from "../../domain/Adapter.js"
import { compareDiagnostics, type Diagnostic } from "../../domain/Diagnostic.js"
import type { FileChange } from "../../domain/FileChange.js"
import { projectItem, readLint, type HashFiles, type ItemInputs } from "../../domain/ItemProjection.js"
import { reusableItems, sameFile } from "../../domain/ItemReuse.js"
import { checkPlans } from "../../domain/PlanChecks.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { ChangeValidator, type ChangeFindings } from "../../services/ChangeValidator.js"
import { IndexStore } from "../../services/IndexStore.js"

/**
 * Change validation over the index (ChangeValidator): the findings of the
 * tree as it is and as it will be, each the findings a full scan would
 * report — plan, R-REF-5 plan checks, every item's own findings, the
 * adapter's whole-bundle rules — where an item whose stored inputs are
 * untouched contributes what the index kept of it instead of being projected
 * again (the reuse rule of `akm index`, R-IDX-2, with the change set's paths
 * counted as changed). The introduced findings are the difference.
 * docs/decisions/0011-incremental-validation.md explains the choice.
 */

type Reusable = (plan: ItemPlan, ref: string) => ItemInputs | undefined

const defectMessage = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** Validation needs no content hash: the document it builds is thrown away. */
const noHash: HashFiles = () => Effect.succeed({ hash: "", bytes: 0 })

/** Parsed once per stored item: both trees (and the engine after the evaluation) share it. */
const lintOfStored = new WeakMap<ItemInputs, LintItem>()

const storedLint = (stored: ItemInputs): LintItem => {
  let item = lintOfStored.get(stored)
  if (item === undefined) {
    item = readLint(stored.plan, stored.lint!)
    lintOfStored.set(stored, item)
  }
  return item
}

/** A tree's plan and its R-REF-5 checks, or why the adapter could not plan it. */
type Planning = Either.Either<{ readonly diagnostics: ReadonlyArray<Diagnostic>; readonly kept: ReadonlyArray<ItemPlan> }, unknown>

const planTree = (info: BundleInfo, adapter: BundleAdapter, files: ReadonlyArray<FileMeta>): Effect.Effect<Planning> =>
  Effect.sync(() => adapter.plan(files, info)).pipe(
    Effect.map((planned) => {
      const plans = checkPlans(info.name, planned.items)
      return { diagnostics: [...planned.diagnostics, ...plans.diagnostics], kept: plans.kept }
    }),
    Effect.either,
    Effect.catchAllDefect((cause) => Effect.succeed(Either.left(cause)))
  )

/**
 * Whether two listings name the same paths in the same order. Adapters plan
 * from the paths alone (no adapter reads a size or time), so an edit that
 * creates and deletes nothing plans the tree as it is and as it will be alike.
 */
const samePaths = (a: ReadonlyArray<FileMeta>, b: ReadonlyArray<FileMeta>): boolean => a.length === b.length && a.every((f, i) => f.path === b[i]!.path)

/** Every finding of one tree, as a scan reports them; `reusable` lets untouched items stand in from the index. */
const treeFindings = (info: BundleInfo, adapter: BundleAdapter, ctx: ValidateContext, planning: Planning, changed: ReadonlySet<string>, reusable: Reusable | undefined) =>
  Effect.gen(function* () {
    if (Either.isLeft(planning)) {
      const failed: Diagnostic = { code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter failed to plan the bundle: ${defectMessage(planning.left)}` }
      return { diagnostics: [failed], refs: [] as ReadonlyArray<string>, projected: 0 }
    }
    const plans = planning.right
    const diagnostics: Array<Diagnostic> = [...plans.diagnostics]
    const lint: Array<LintItem> = []
    const refByPath = new Map<string, string>()
    const refs: Array<string> = []
    let projected = 0
    for (const [index, plan] of plans.kept.entries()) {
      const ref = `${info.name}//${plan.conceptId}`
      if (plan.files.some((f) => changed.has(f))) refs.push(ref)
      const stored = reusable?.(plan, ref)
      const item = stored !== undefined ? { diagnostics: stored.diagnostics, lint: stored.lint } : yield* projectItem(info, adapter, ctx, noHash, plan, index)
      if (stored === undefined) projected++
      diagnostics.push(...item.diagnostics)
      if (adapter.lintBundle !== undefined && item.lint !== undefined) {
        lint.push(stored === undefined ? readLint(plan, item.lint) : storedLint(stored))
        refByPath.set(plan.files[0] ?? plan.conceptId, ref)
      }
    }
    if (adapter.lintBundle !== undefined) {
      const lintBundle = adapter.lintBundle
      const found = yield* Effect.suspend(() => lintBundle(ctx, lint)).pipe(
        Effect.catchAllDefect((cause) =>
          Effect.succeed<ReadonlyArray<Diagnostic>>([{ code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter's bundle checks failed: ${defectMessage(cause)}` }])
        )
      )
      diagnostics.push(...found.map((d) => (d.ref !== undefined || !refByPath.has(d.path) ? d : { ...d, ref: refByPath.get(d.path)! })))
    }
    return { diagnostics, refs, projected }
  })

/**
 * How the index can stand in for untouched items, before and after the
 * changes; undefined when it cannot (no manifest, a stale or failed run,
 * another adapter version or root, a coupling file changed or changing):
 * then every item is projected.
 */
const storedReuse = (store: IndexStore["Type"], inputsOf: (bundle: string, indexedAt: string) => Effect.Effect<ReadonlyMap<string, ItemInputs>, unknown>, info: BundleInfo, adapter: BundleAdapter, files: ReadonlyArray<FileMeta>, changes: ReadonlyArray<FileChange>) =>
  Effect.gen(function* () {
    const manifest = yield* store.manifest(info.name)
    if (manifest === undefined || manifest.staleReason !== undefined) return undefined
    if (manifest.adapter.id !== adapter.id || manifest.adapter.version !== adapter.version) return undefined
    if (manifest.root !== undefined && manifest.root !== info.root) return undefined
    const listed = new Map(files.map((f) => [f.path, f] as const))
    const remembered = new Map(manifest.files.map((f) => [f.path, f] as const))
    const paths = changes.map((c) => c.path.normalize("NFC"))
    for (const coupling of adapter.couplingFiles ?? []) {
      const before = remembered.get(coupling)
      const now = listed.get(coupling)
      if (paths.includes(coupling)) return undefined
      if (before === undefined ? now !== undefined : now === undefined || !sameFile(now, before)) return undefined
    }
    const stored = yield* inputsOf(info.name, manifest.indexedAt)
    // A write that creates a file, or a delete of one, changes the listing.
    const appearing = changes.filter((c) => (c.delete === true) === listed.has(c.path.normalize("NFC"))).map((c) => c.path.normalize("NFC"))
    return {
      before: reusableItems(manifest, files, stored).reusable,
      after: reusableItems(manifest, files, stored, { paths, listed: appearing }).reusable
    }
  }).pipe(Effect.orElseSucceed(() => undefined))

/** Codes are identifiers: no NUL, so code and path cannot run together. */
const key = (d: Diagnostic): string => `${d.code}\0${d.path}`

/** Findings of `after` beyond those `before` has (same code and path, as many times). */
const introducedBy = (before: ReadonlyArray<Diagnostic>, after: ReadonlyArray<Diagnostic>): ReadonlyArray<Diagnostic> => {
  const allowance = new Map<string, number>()
  for (const d of before) allowance.set(key(d), (allowance.get(key(d)) ?? 0) + 1)
  return after.filter((d) => {
    const left = allowance.get(key(d)) ?? 0
    if (left > 0) allowance.set(key(d), left - 1)
    return left === 0
  })
}

/** A digest of a validation's inputs: the bundle and adapter, every file's stat, the changes' bytes, the index run. */
const answerKey = (info: BundleInfo, adapter: BundleAdapter, files: ReadonlyArray<FileMeta>, changes: ReadonlyArray<FileChange>, indexedAt: string | undefined): string => {
  const digest = createHash("sha256")
  digest.update(JSON.stringify([info.name, info.root, adapter.id, adapter.version, indexedAt ?? null]))
  for (const f of files) digest.update(`\0${f.path}\0${f.size}\0${f.mtimeMs}\0${f.linkedTo ?? ""}`)
  for (const c of changes) {
    digest.update(`\u0001${c.path}\0${c.beforeHash ?? ""}\0${c.delete === true ? "delete" : ""}\0${c.mode ?? ""}\0`)
    if (c.after !== undefined) digest.update(c.after)
  }
  return digest.digest("hex")
}

/** The validator over a BundleFiles and, when there is one, the index. */
export const makeChangeValidator = (files: BundleFiles["Type"], store: IndexStore["Type"] | undefined): ChangeValidator["Type"] => {
  // The last bundle's stored inputs, kept while its index run stands: a direct write validates twice (evaluation, then engine).
  let cached: { readonly key: string; readonly inputs: ReadonlyMap<string, ItemInputs> } | undefined
  const inputsOf = (bundle: string, indexedAt: string) =>
    Effect.suspend(() => {
      const key = JSON.stringify([bundle, indexedAt])
      if (cached?.key === key) return Effect.succeed(cached.inputs)
      return Effect.tap(store!.itemInputs(bundle), (inputs) => Effect.sync(() => void (cached = { key, inputs })))
    })
  // The last answer, by everything it depends on: the engine validates the set the evaluation just did, on the same tree.
  let last: { readonly key: string; readonly findings: ChangeFindings } | undefined
  return ChangeValidator.of({
    validate: (info, adapter, changes) =>
      Effect.gen(function* () {
        const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
        const manifest = store === undefined ? undefined : yield* Effect.orElseSucceed(store.manifest(info.name), () => undefined)
        const key = answerKey(info, adapter, walked.files, changes, manifest?.indexedAt)
        if (last?.key === key) return last.findings
        const changed = new Set(changes.map((c) => c.path.normalize("NFC")))
        const reuse = store === undefined ? undefined : yield* storedReuse(store, inputsOf, info, adapter, walked.files, changes)
        const beforeCtx = files.context(info, walked.files)
        const afterCtx = files.context(info, walked.files, changes)
        const beforePlan = yield* planTree(info, adapter, beforeCtx.files)
        const afterPlan = samePaths(beforeCtx.files, afterCtx.files) ? beforePlan : yield* planTree(info, adapter, afterCtx.files)
        const before = yield* treeFindings(info, adapter, beforeCtx, beforePlan, changed, reuse?.before)
        const after = yield* treeFindings(info, adapter, afterCtx, afterPlan, changed, reuse?.after)
        const findings: ChangeFindings = {
          introduced: [...introducedBy(before.diagnostics, after.diagnostics)].sort(compareDiagnostics),
          refs: after.refs,
          projected: before.projected + after.projected,
          incremental: reuse !== undefined
        }
        last = { key, findings }
        return findings
      })
  })
}

/** The live validator: the workspace's BundleFiles and index. */
export const ChangeValidatorIndexed = Layer.effect(
  ChangeValidator,
  Effect.gen(function* () {
    const files = yield* BundleFiles
    const store = yield* IndexStore
    return makeChangeValidator(files, store)
  })
)

/** A validator without an index (an embedding program or a test harness that has none): every check is a full validation. */
export const ChangeValidatorFull = Layer.effect(ChangeValidator, Effect.map(BundleFiles, (files) => makeChangeValidator(files, undefined)))
