import { Effect } from "effect"
import type { EvidenceInput } from "../../domain/Evidence.js"
import { lint, type LintResult } from "../lint.js"

/** Rule codes that report a link or reference naming nothing, across the adapters. */
export const BROKEN_LINK_CODES: ReadonlySet<string> = new Set(["dangling-link", "broken-ref", "broken-xref", "broken-source", "missing-page"])

/**
 * `akm lint` findings as evidence (spec 06 §1): a broken link or reference
 * (error or warning) is `broken-link`, any other error `lint-error`; warnings
 * and infos are not corrective evidence. A finding that names no item (a
 * bundle manifest) cannot be revised as an item and is left to `akm lint`.
 * A finding is a fact about the files as they are, so all of a bundle's
 * findings share one independence key: re-linting never adds weight.
 */
export const lintEvidence = (result: LintResult): ReadonlyArray<EvidenceInput> =>
  result.bundles.flatMap((bundle) =>
    bundle.files.flatMap((file) =>
      file.diagnostics.flatMap((d): ReadonlyArray<EvidenceInput> => {
        if (d.ref === undefined || d.severity === "info") return []
        const kind = BROKEN_LINK_CODES.has(d.code) ? "broken-link" : d.severity === "error" ? "lint-error" : undefined
        if (kind === undefined) return []
        return [{
          kind,
          source: "lint",
          ref: d.ref,
          note: `${d.code}: ${d.message}`,
          independenceKey: `lint/${bundle.bundle}`,
          origin: `${file.path}${d.line === undefined ? "" : `:${d.line}`} (${d.code})`
        }]
      })
    )
  )

/** Lints the bundle (or every bundle) without writing; returns the evidence and the bundles that were read. */
export const evidenceFromLint = (bundle: string | undefined) =>
  Effect.map(lint({ bundle, strict: false, fix: false, failOn: "error" }), (result) => ({
    inputs: lintEvidence(result),
    linted: result.bundles.filter((b) => b.stale !== true).map((b) => b.bundle)
  }))
