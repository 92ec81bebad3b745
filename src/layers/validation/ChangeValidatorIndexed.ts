import { createHash } from "node:crypto"
import { Effect, Either, FiberRef, Layer } from "effect"
import type { BundleAdapter, BundleInfo, FileMeta, ItemPlan, LintItem, ValidateContext } from "../../domain/Adapter.js"
import { compareDiagnostics, countBySeverity, type Diagnostic } from "../../domain/Diagnostic.js"
import type { FileChange } from "../../domain/FileChange.js"
import { projectItem, readLint, storedLint, type HashFiles, type ItemInputs } from "../../domain/ItemProjection.js"
import { reusableItems, sameFile, type RememberedFile } from "../../domain/ItemReuse.js"
import { planChecked, samePaths } from "../../domain/PlanChecks.js"
import { sliceEnds, yieldIfSpent } from "../../domain/EventLoopSlice.js"
import { BundleFiles, CarriedListings, sharedWalkKey, type ValidatedCounts } from "../../services/BundleFiles.js"
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


/** A tree's plan and its R-REF-5 checks, or why the adapter could not plan it. */
type Planning = Either.Either<{ readonly diagnostics: ReadonlyArray<Diagnostic>; readonly kept: ReadonlyArray<ItemPlan> }, unknown>

const planTree = (info: BundleInfo, adapter: BundleAdapter, files: ReadonlyArray<FileMeta>): Effect.Effect<Planning> =>
  Effect.sync(() => planChecked(info, adapter, files)).pipe(
    Effect.map(({ planned, checked }) => ({ diagnostics: [...planned.diagnostics, ...checked.diagnostics], kept: checked.kept })),
    Effect.either,
    Effect.catchAllDefect((cause) => Effect.succeed(Either.left(cause)))
  )

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
      if (sliceEnds(index)) yield* yieldIfSpent
      const ref = `${info.name}//${plan.conceptId}`
      if (plan.files.some((f) => changed.has(f))) refs.push(ref)
      const stored = reusable?.(plan, ref)
      const item = stored !== undefined ? { diagnostics: stored.diagnostics, lint: stored.lint } : yield* projectItem(info, adapter, ctx, noHash, plan, index)
      if (stored === undefined) projected++
      diagnostics.push(...item.diagnostics)
      if (adapter.lintBundle !== undefined && item.lint !== undefined) {
        lint.push(stored === undefined ? readLint(plan, item.lint) : storedLint(stored, item.lint))
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

/** One tree's share of a paired pass: its findings and what its bundle rules see. */
interface TreeShare {
  readonly ctx: ValidateContext
  readonly diagnostics: Array<Diagnostic>
  readonly lint: Array<LintItem>
  readonly refByPath: Map<string, string>
}

/**
 * A tree's whole-bundle findings. With `changed` (the concept ids of the
 * items the two trees do not share) and an adapter that can, only the
 * findings that can differ between the trees: those about a changed item or
 * an item naming one (BundleAdapter.lintChanged); the others are equal in
 * both trees and would cancel (decision 0038).
 */
const lintTree = (adapter: BundleAdapter, tree: TreeShare, changed?: ReadonlySet<string>) =>
  Effect.gen(function* () {
    if (adapter.lintBundle === undefined) return
    const lintBundle = adapter.lintBundle
    const lintChanged = changed === undefined ? undefined : adapter.lintChanged
    const found = yield* Effect.suspend(() => (lintChanged !== undefined ? lintChanged(tree.ctx, tree.lint, changed!) : lintBundle(tree.ctx, tree.lint))).pipe(
      Effect.catchAllDefect((cause) =>
        Effect.succeed<ReadonlyArray<Diagnostic>>([{ code: "adapter-failed", severity: "error", path: ".", message: `the ${adapter.id} adapter's bundle checks failed: ${defectMessage(cause)}` }])
      )
    )
    // Items both trees share are not in refByPath (20,000 entries per tree): the few a finding names are looked up here.
    const missing = new Set(found.filter((d) => d.ref === undefined && !tree.refByPath.has(d.path)).map((d) => d.path))
    if (missing.size > 0) {
      for (const { plan } of tree.lint) {
        const primary = plan.files[0] ?? plan.conceptId
        if (missing.has(primary) && !tree.refByPath.has(primary)) tree.refByPath.set(primary, `${tree.ctx.bundle.name}//${plan.conceptId}`)
      }
    }
    tree.diagnostics.push(...found.map((d) => (d.ref !== undefined || !tree.refByPath.has(d.path) ? d : { ...d, ref: tree.refByPath.get(d.path)! })))
  })

type Plans = { readonly diagnostics: ReadonlyArray<Diagnostic>; readonly kept: ReadonlyArray<ItemPlan> }

/**
 * Both trees in one pass (issue 13 item 3, decision 0032). An item whose
 * stored inputs stand in for it in both trees (the same stored inputs, so
 * the same findings) contributes identical findings to both, which cancel
 * in the difference: they are not collected at all, and only its lint item
 * (parsed once) goes to both trees' bundle rules, which still see every
 * item. For an edit that creates and deletes nothing the two trees share
 * one plan, and the paths dirty before the changes are a subset of those
 * dirty after them, so what stands in after the changes stands in before
 * them too and one reuse check per item decides; the plan's findings then
 * cancel as well. The other items are found per tree as `treeFindings`
 * finds them. The answer equals two `treeFindings` passes compared with
 * `introducedBy`.
 */
const pairedFindings = (info: BundleInfo, adapter: BundleAdapter, beforeCtx: ValidateContext, afterCtx: ValidateContext, beforePlans: Plans, afterPlans: Plans, changed: ReadonlySet<string>, reuse: { readonly before: Reusable; readonly after: Reusable }) =>
  Effect.gen(function* () {
    const same = beforePlans === afterPlans
    const before: TreeShare = { ctx: beforeCtx, diagnostics: same ? [] : [...beforePlans.diagnostics], lint: [], refByPath: new Map() }
    const after: TreeShare = { ctx: afterCtx, diagnostics: same ? [] : [...afterPlans.diagnostics], lint: [], refByPath: new Map() }
    const refs: Array<string> = []
    const linting = adapter.lintBundle !== undefined
    let projected = 0
    const refOf = (plan: ItemPlan) => `${info.name}//${plan.conceptId}`
    /** An item both trees take from the index: only its lint item (its ref is found only if a finding names its file). */
    const shared = (tree: TreeShare, stored: ItemInputs) => {
      if (!linting || stored.lint === undefined) return
      tree.lint.push(storedLint(stored, stored.lint))
    }
    // The concept ids of the items the trees do not share: the only ones whose whole-bundle findings can differ.
    const unshared = new Set<string>()
    /** An item of one tree: from the index when `stored` stands in for it, else projected; its lint item only when linting. */
    const itemOf = (tree: TreeShare, plan: ItemPlan, index: number, stored: ItemInputs | undefined) =>
      Effect.gen(function* () {
        unshared.add(plan.conceptId)
        const item = stored !== undefined ? { diagnostics: stored.diagnostics, lint: stored.lint } : yield* projectItem(info, adapter, tree.ctx, noHash, plan, index)
        if (stored === undefined) projected++
        tree.diagnostics.push(...item.diagnostics)
        return linting && item.lint !== undefined ? (stored === undefined ? readLint(plan, item.lint) : storedLint(stored, item.lint)) : undefined
      })
    const own = (tree: TreeShare, plan: ItemPlan, ref: string, index: number, stored: ItemInputs | undefined) =>
      Effect.gen(function* () {
        const lint = yield* itemOf(tree, plan, index, stored)
        if (lint === undefined) return
        tree.lint.push(lint)
        tree.refByPath.set(plan.files[0] ?? plan.conceptId, ref)
      })
    // A create or delete: the before tree's items by concept id, so one pass over the after tree pairs them
    // (decision 0052). The before tree's lint items keep its plan order (rules such as a duplicate name pick by
    // order), so they are placed by plan index and gathered after the pass.
    const beforeIndex = new Map<string, number>()
    const beforeLint: Array<LintItem | undefined> = same || !linting ? [] : new Array(beforePlans.kept.length)
    const paired: Array<boolean> = same ? [] : new Array(beforePlans.kept.length)
    if (!same) {
      for (const [index, plan] of beforePlans.kept.entries()) beforeIndex.set(plan.conceptId, index)
    }
    /** A before-tree item: its findings, and its lint item in its plan's slot. */
    const ownBefore = (plan: ItemPlan, ref: string, index: number, stored: ItemInputs | undefined) =>
      Effect.gen(function* () {
        const lint = yield* itemOf(before, plan, index, stored)
        if (lint === undefined) return
        beforeLint[index] = lint
        before.refByPath.set(plan.files[0] ?? plan.conceptId, ref)
      })
    for (const [index, plan] of afterPlans.kept.entries()) {
      // Thousands of items in one pass: the event loop turns between slices (decision 0048).
      if (sliceEnds(index)) yield* yieldIfSpent
      const ref = refOf(plan)
      if (plan.files.some((f) => changed.has(f))) refs.push(ref)
      // A create or delete: the before tree's plan of the item is checked against its stored inputs first, so each
      // stored item is confirmed last against the after tree's plan, which the index refresh plans again and then
      // finds confirmed (ItemReuse keeps one plan per stored item; decision 0057).
      const at = same ? undefined : beforeIndex.get(plan.conceptId)
      const beforePlan = at === undefined ? undefined : beforePlans.kept[at]!
      const standIn = beforePlan === undefined ? undefined : reuse.before(beforePlan, ref)
      const stored = reuse.after(plan, ref)
      if (same) {
        if (stored !== undefined) {
          shared(after, stored)
          shared(before, stored)
          continue
        }
        yield* own(after, plan, ref, index, stored)
        yield* own(before, plan, ref, index, reuse.before(plan, ref))
        continue
      }
      // An item both trees plan alike and the index stands in for in both: its findings cancel.
      if (at !== undefined) paired[at] = true
      if (stored !== undefined && standIn === stored) {
        shared(after, stored)
        if (linting && stored.lint !== undefined) beforeLint[at!] = storedLint(stored, stored.lint)
        continue
      }
      yield* own(after, plan, ref, index, stored)
      if (at !== undefined) yield* ownBefore(beforePlan!, ref, at, standIn)
    }
    if (!same) {
      // Items only the before tree plans (a delete).
      for (const [index, plan] of beforePlans.kept.entries()) {
        if (sliceEnds(index, 256)) yield* yieldIfSpent
        if (paired[index] === true) continue
        yield* ownBefore(plan, refOf(plan), index, reuse.before(plan, refOf(plan)))
      }
      if (linting) for (const item of beforeLint) if (item !== undefined) before.lint.push(item)
    }
    yield* lintTree(adapter, before, unshared)
    yield* lintTree(adapter, after, unshared)
    return { before: before.diagnostics, after: after.diagnostics, refs, projected }
  })

/** The files of `files` whose paths are among `wanted`, by path. */
const filesNamed = <F extends { readonly path: string }>(files: ReadonlyArray<F>, wanted: ReadonlyArray<string>): ReadonlyMap<string, F> => {
  const found = new Map<string, F>()
  if (wanted.length === 0) return found
  const paths = new Set(wanted)
  for (const f of files) if (paths.has(f.path)) found.set(f.path, f)
  return found
}

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
    const paths = changes.map((c) => c.path.normalize("NFC"))
    const couplingFiles = adapter.couplingFiles ?? []
    // Only the coupling files and the changed paths are looked up: one pass with a small set, not two 20,000-entry maps.
    const listed = filesNamed(files, [...couplingFiles, ...paths])
    const remembered = couplingFiles.length === 0 ? new Map<string, RememberedFile>() : filesNamed(manifest.files, couplingFiles)
    for (const coupling of couplingFiles) {
      const before = remembered.get(coupling)
      const now = listed.get(coupling)
      if (paths.includes(coupling)) return undefined
      if (before === undefined ? now !== undefined : now === undefined || !sameFile(now, before)) return undefined
    }
    const stored = yield* inputsOf(info.name, manifest.indexedAt)
    yield* yieldIfSpent
    // A write that creates a file, or a delete of one, changes the listing.
    const appearing = changes.filter((c) => (c.delete === true) === listed.has(c.path.normalize("NFC"))).map((c) => c.path.normalize("NFC"))
    // One pass over the listing answers both trees.
    const reuse = reusableItems(manifest, files, stored, { paths, listed: appearing })
    yield* yieldIfSpent
    return { before: reuse.unchanged, after: reuse.reusable, untouched: reuse.untouched ? manifest : undefined }
  }).pipe(Effect.orElseSucceed(() => undefined))

/** `after` less `before`, by severity. */
const countsDelta = (before: ReadonlyArray<Diagnostic>, after: ReadonlyArray<Diagnostic>) => {
  const was = countBySeverity(before)
  const is = countBySeverity(after)
  return { error: is.error - was.error, warning: is.warning - was.warning, info: is.info - was.info }
}

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

/** Whether two walks listed the same files with the same stats (compared, not hashed: 20,000 stats took ≈ 0.1 s to digest). */
const sameListing = (a: ReadonlyArray<FileMeta>, b: ReadonlyArray<FileMeta>): boolean =>
  a === b || (a.length === b.length && a.every((f, i) => {
    const g = b[i]!
    return f.path === g.path && f.size === g.size && f.mtimeMs === g.mtimeMs && f.linkedTo === g.linkedTo
  }))

/** A digest of a validation's other inputs: the bundle and adapter, the changes' bytes, the index run (the listing is compared apart). */
const answerKey = (info: BundleInfo, adapter: BundleAdapter, changes: ReadonlyArray<FileChange>, indexedAt: string | undefined): string => {
  const digest = createHash("sha256")
  digest.update(JSON.stringify([info.name, info.root, adapter.id, adapter.version, indexedAt ?? null]))
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
  let last: { readonly key: string; readonly files: ReadonlyArray<FileMeta>; readonly findings: ChangeFindings; readonly counted: ValidatedCounts | undefined } | undefined
  return ChangeValidator.of({
    validate: (info, adapter, changes) =>
      Effect.gen(function* () {
        const walkOptions = { includeHidden: adapter.includeHidden ?? false }
        const walked = yield* files.walk(info.root, walkOptions)
        const manifest = store === undefined ? undefined : yield* Effect.orElseSucceed(store.manifest(info.name), () => undefined)
        // Inside an accept, the engine relists this walk after its write and the index refresh takes it (decision 0038).
        const carried = yield* FiberRef.get(CarriedListings)
        const carry = (counted: ValidatedCounts | undefined) => carried?.set(sharedWalkKey(info.root, walkOptions), { result: walked, indexedAt: manifest?.indexedAt, written: false, counted })
        carry(undefined)
        const key = answerKey(info, adapter, changes, manifest?.indexedAt)
        if (last?.key === key && sameListing(last.files, walked.files)) {
          carry(last.counted)
          return last.findings
        }
        const changed = new Set(changes.map((c) => c.path.normalize("NFC")))
        const reuse = store === undefined ? undefined : yield* storedReuse(store, inputsOf, info, adapter, walked.files, changes)
        const beforeCtx = files.context(info, walked.files)
        const afterCtx = files.context(info, walked.files, changes)
        yield* yieldIfSpent
        const beforePlan = yield* planTree(info, adapter, beforeCtx.files)
        yield* yieldIfSpent
        const edit = samePaths(beforeCtx.files, afterCtx.files)
        const afterPlan = edit ? beforePlan : yield* planTree(info, adapter, afterCtx.files)
        const paired = reuse !== undefined && Either.isRight(beforePlan) && Either.isRight(afterPlan)
        const found = paired
          ? yield* pairedFindings(info, adapter, beforeCtx, afterCtx, beforePlan.right, afterPlan.right, changed, reuse)
          : yield* Effect.gen(function* () {
            const before = yield* treeFindings(info, adapter, beforeCtx, beforePlan, changed, reuse?.before)
            const after = yield* treeFindings(info, adapter, afterCtx, afterPlan, changed, reuse?.after)
            return { before: before.diagnostics, after: after.diagnostics, refs: after.refs, projected: before.projected + after.projected }
          })
        const findings: ChangeFindings = {
          introduced: [...introducedBy(found.before, found.after)].sort(compareDiagnostics),
          refs: found.refs,
          projected: found.projected,
          incremental: reuse !== undefined
        }
        // The paired pass leaves out what both trees share, so its two lists differ by what the whole trees' findings
        // differ by; over the index run's own tree, that run's counts plus the difference are the counts after the write.
        const counted = paired && reuse.untouched !== undefined && reuse.untouched.indexedAt === manifest?.indexedAt
          ? { indexedAt: reuse.untouched.indexedAt, delta: countsDelta(found.before, found.after) }
          : undefined
        carry(counted)
        last = { key, files: walked.files, findings, counted }
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
