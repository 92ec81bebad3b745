import { Effect } from "effect"
import { compareDiagnostics, type Diagnostic } from "../../domain/Diagnostic.js"
import type { FileChange } from "../../domain/FileChange.js"
import { sha256Hex, type Evaluation } from "../../domain/Proposal.js"
import { ChangeValidator } from "../../services/ChangeValidator.js"
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

/**
 * Validates a change set with each bundle's adapter on the overlay (the tree
 * as it will be), against the same items on the tree as it is: only findings
 * the changes introduce are reported, and an introduced error makes the
 * verdict "fail", which blocks accept. Reads only (R-AD-1).
 */
export const evaluateChanges = Effect.fn("proposal.evaluate")(function* (changes: ReadonlyArray<FileChange>) {
  const validator = yield* ChangeValidator
  const introduced: Array<Diagnostic> = []
  const refs: Array<string> = []
  const guidance: Array<string> = []
  const evaluators: Array<string> = []
  for (const bundle of bundlesOf({ changes })) {
    const { info, adapter } = yield* resolveBundle(bundle)
    const own = changes.filter((c) => c.bundle === bundle)
    const found = yield* validator.validate(info, adapter, own)
    // A fix is a FileChange list: keep the finding, not its bytes.
    introduced.push(...found.introduced.map(({ fix: _fix, ...d }) => d))
    refs.push(...found.refs)
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
