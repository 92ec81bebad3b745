import type { FileChange } from "./FileChange.js"

export type Severity = "error" | "warning" | "info"

/** A finding from validation or lint (spec 03 §1). `fix` is applied by `lint --fix` through a proposal. */
export interface Diagnostic {
  readonly code: string
  readonly severity: Severity
  /** Bundle-relative path of the file the finding is about. */
  readonly path: string
  readonly message: string
  readonly ref?: string
  readonly line?: number
  readonly fix?: ReadonlyArray<FileChange>
  /**
   * How the fix changes the bundle: `mechanical` (default) is applied by `lint --fix` when policy
   * allows; `semantic` (a folder rename that changes a ref) is only ever proposed for review.
   */
  readonly fixClass?: "mechanical" | "semantic"
}

const order: Record<Severity, number> = { error: 0, warning: 1, info: 2 }

/** Stable order for output and determinism: path, line, severity, code, message. */
export const compareDiagnostics = (a: Diagnostic, b: Diagnostic): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1
  : (a.line ?? 0) - (b.line ?? 0) || order[a.severity] - order[b.severity] || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0) || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)

export const countBySeverity = (diagnostics: ReadonlyArray<Diagnostic>) => {
  const counts = { error: 0, warning: 0, info: 0 }
  for (const d of diagnostics) counts[d.severity]++
  return counts
}
