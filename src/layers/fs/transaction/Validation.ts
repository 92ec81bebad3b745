import { Effect } from "effect"
import type { BundleAdapter, BundleInfo, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { WorkspaceUnavailable } from "../../../domain/Errors.js"
import type { FileChange } from "../../../domain/FileChange.js"
import type { BundleFiles } from "../../../services/BundleFiles.js"

/**
 * Adapter validation of a change set on the overlay (spec 05 §2 step 5,
 * R-AD-1): the bundle's adapter plans the tree with the changes laid over the
 * snapshot and projects every item that touches a changed path, before and
 * after. A set fails on the errors it introduces — an error the same file had
 * before (same code, same path) is not the change's doing, so a lint fix that
 * repairs one finding in a file with another still applies.
 *
 * It runs inside the engine (a layer cannot call the scan program) and reads
 * only through BundleFiles, like a scan. Whole-bundle rules (lintBundle: link
 * and reference checks) stay with `akm lint`; they report warnings.
 */

const touchedErrors = (adapter: BundleAdapter, ctx: ValidateContext, changed: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const errors: Array<Diagnostic> = []
    const planned = yield* Effect.sync(() => adapter.plan(ctx.files, ctx.bundle)).pipe(
      Effect.catchAllDefect((cause) => Effect.succeed({ items: [], diagnostics: [{ code: "adapter-failed", severity: "error" as const, path: ".", message: `the ${adapter.id} adapter failed to plan the bundle: ${String(cause)}` }] }))
    )
    errors.push(...planned.diagnostics.filter((d) => d.severity === "error" && changed.has(d.path)))
    for (const item of planned.items) {
      if (!item.files.some((f) => changed.has(f))) continue
      const primary = item.files[0] ?? item.conceptId
      const found = yield* Effect.suspend(() => adapter.project(item, ctx)).pipe(
        Effect.map((result) => result.diagnostics),
        Effect.catchAll((failure) => Effect.succeed<ReadonlyArray<Diagnostic>>(
          failure.code === "missing" ? [] : [{ code: failure.code === "too-large" ? "file-too-large" : "invalid-encoding", severity: "error", path: failure.path === "" ? primary : failure.path, message: failure.message }]
        )),
        Effect.catchAllDefect((cause) => Effect.succeed<ReadonlyArray<Diagnostic>>([{ code: "adapter-failed", severity: "error", path: primary, message: `the ${adapter.id} adapter failed on this item: ${String(cause)}` }]))
      )
      errors.push(...found.filter((d) => d.severity === "error"))
    }
    return errors
  })

const key = (d: Diagnostic): string => `${d.code}\0${d.path}`

/** The errors a change set adds to one bundle; empty when it may be written. */
export const newErrors = (files: BundleFiles["Type"], bundle: BundleInfo, adapter: BundleAdapter, changes: ReadonlyArray<FileChange>): Effect.Effect<ReadonlyArray<Diagnostic>, WorkspaceUnavailable> =>
  Effect.gen(function* () {
    const walked = yield* files.walk(bundle.root, { includeHidden: adapter.includeHidden ?? false })
    const changed = new Set(changes.map((c) => c.path.normalize("NFC")))
    const before = yield* touchedErrors(adapter, files.context(bundle, walked.files), changed)
    const after = yield* touchedErrors(adapter, files.context(bundle, walked.files, changes), changed)
    const allowance = new Map<string, number>()
    for (const d of before) allowance.set(key(d), (allowance.get(key(d)) ?? 0) + 1)
    return after.filter((d) => {
      const left = allowance.get(key(d)) ?? 0
      if (left === 0) return true
      allowance.set(key(d), left - 1)
      return false
    })
  })
