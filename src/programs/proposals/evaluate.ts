import { Effect } from "effect"
import type { BundleAdapter, BundleInfo, FileUnreadable, ItemPlan, ValidateContext } from "../../domain/Adapter.js"
import { compareDiagnostics, type Diagnostic } from "../../domain/Diagnostic.js"
import type { FileChange } from "../../domain/FileChange.js"
import { sha256Hex, type Evaluation } from "../../domain/Proposal.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { resolveBundle } from "../scan.js"
import { bundlesOf, now } from "./lookup.js"

/** What validating a change set found, per the bundles it touches. */
export interface EvaluationResult {
  readonly evaluation: Evaluation
  /** Refs of the items the changes touch, as they are after the changes. */
  readonly refs: ReadonlyArray<string>
  /** The adapters' rule hashes and evaluator ids (fingerprint inputs). */
  readonly guidance: ReadonlyArray<string>
  readonly evaluator: string
}

const unreadable = (failure: FileUnreadable, ref: string): Diagnostic => ({
  code: failure.code === "invalid-encoding" || failure.code === "binary" ? "invalid-encoding" : "unreadable-file",
  severity: failure.code === "invalid-encoding" || failure.code === "binary" ? "error" : "warning",
  path: failure.path,
  message: failure.message,
  ref
})

/** Plan diagnostics about the touched files plus each touched item's own findings, on one tree. */
const findings = (info: BundleInfo, adapter: BundleAdapter, ctx: ValidateContext, touched: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const planned = yield* Effect.try(() => adapter.plan(ctx.files, info)).pipe(
      Effect.catchAll((cause) => Effect.succeed({ items: [] as ReadonlyArray<ItemPlan>, diagnostics: [{ code: "adapter-failed", severity: "error" as const, path: ".", message: `the ${adapter.id} adapter failed to plan the bundle: ${String(cause)}` }] }))
    )
    const items = planned.items.filter((item) => item.files.some((f) => touched.has(f)))
    const diagnostics: Array<Diagnostic> = planned.diagnostics.filter((d) => touched.has(d.path) || d.path === ".")
    for (const item of items) {
      const ref = `${info.name}//${item.conceptId}`
      const found = yield* Effect.suspend(() => adapter.project(item, ctx)).pipe(
        Effect.map((r) => r.diagnostics.map((d) => ({ ...d, ref: d.ref ?? ref }))),
        Effect.catchAll((failure) => Effect.succeed([unreadable(failure, ref)])),
        Effect.catchAllDefect((cause) => Effect.succeed([{ code: "adapter-failed", severity: "error" as const, path: item.files[0] ?? ".", ref, message: `the ${adapter.id} adapter failed on this item: ${String(cause)}` }]))
      )
      diagnostics.push(...found)
    }
    return { refs: items.map((item) => `${info.name}//${item.conceptId}`), diagnostics }
  })

/**
 * A finding counts as the change's doing unless the same file had one with
 * the same code before (as many times as before) — the rule the engine's own
 * validation applies, so the evaluation and the apply agree. Lines and
 * message details may move with an edit.
 */
const introducedBy = (before: ReadonlyArray<Diagnostic>, after: ReadonlyArray<Diagnostic>): ReadonlyArray<Diagnostic> => {
  const key = (d: Diagnostic): string => JSON.stringify([d.code, d.path])
  const allowance = new Map<string, number>()
  for (const d of before) allowance.set(key(d), (allowance.get(key(d)) ?? 0) + 1)
  return after.filter((d) => {
    const left = allowance.get(key(d)) ?? 0
    if (left > 0) allowance.set(key(d), left - 1)
    return left === 0
  })
}

/**
 * Validates a change set with each bundle's adapter on the overlay (the tree
 * as it will be), against the same items on the tree as it is: only findings
 * the changes introduce are reported, and an introduced error makes the
 * verdict "fail", which blocks accept. Reads only (R-AD-1).
 */
export const evaluateChanges = Effect.fn("proposal.evaluate")(function* (changes: ReadonlyArray<FileChange>) {
  const files = yield* BundleFiles
  const introduced: Array<Diagnostic> = []
  const refs: Array<string> = []
  const guidance: Array<string> = []
  const evaluators: Array<string> = []
  for (const bundle of bundlesOf({ changes })) {
    const { info, adapter } = yield* resolveBundle(bundle)
    const own = changes.filter((c) => c.bundle === bundle)
    const touched = new Set(own.map((c) => c.path))
    const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
    const before = yield* findings(info, adapter, files.context(info, walked.files), touched)
    const after = yield* findings(info, adapter, files.context(info, walked.files, own), touched)
    // A fix is a FileChange list: keep the finding, not its bytes.
    introduced.push(...introducedBy(before.diagnostics, after.diagnostics).map(({ fix: _fix, ...d }) => d))
    refs.push(...after.refs)
    guidance.push(sha256Hex(JSON.stringify([adapter.id, adapter.version, adapter.rules])))
    evaluators.push(`adapter:${adapter.id}@${adapter.version}`)
  }
  const evaluator = evaluators.join(",")
  const evaluation: Evaluation = {
    verdict: introduced.some((d) => d.severity === "error") ? "fail" : "pass",
    diagnostics: introduced.sort(compareDiagnostics),
    evaluator,
    at: yield* now
  }
  return { evaluation, refs, guidance, evaluator } satisfies EvaluationResult as EvaluationResult
})
