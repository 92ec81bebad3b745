/**
 * Evidence: what justifies improving knowledge (spec 06 §1). Only corrective
 * evidence admits a semantic change (R-IMP-1); popularity, age or size never do.
 */

export const EVIDENCE_KINDS = [
  "negative-feedback",
  "failed-run",
  "lint-error",
  "broken-link",
  "contradiction",
  "recurring-failure",
  "session",
  "question",
  "pressure",
  "duplicate",
  "expired",
  "failed-search"
] as const
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number]

/** Where a row came from: the command or importer that produced it. */
export type EvidenceSource = "feedback" | "lint" | "ledger" | "manual" | "claude-code" | "codex" | "opencode" | "run" | "memory" | "search"

export interface EvidenceInput {
  readonly kind: EvidenceKind
  readonly source: EvidenceSource
  /** The item it is about; absent for evidence that asks for a new item (a question, a recurring failure). */
  readonly ref?: string | undefined
  /** Redacted before it reaches the store (Redactor). */
  readonly note: string
  /**
   * Independence key (R-IMP-2): observations sharing it count once — the session
   * id, the run id, the ledger occurrence's date+source. Defaults to the row's own id.
   */
  readonly independenceKey?: string | undefined
  /** A query that failed or a question asked (becomes a trigger query in verification). */
  readonly query?: string | undefined
  /** Where it was observed: transcript path:line, ledger record id, lint rule code. */
  readonly origin?: string | undefined
  readonly observedAt?: string | undefined
  /**
   * Structured details a producer keeps with the row and reads back itself
   * (a queued background capture's tags and expiry); JSON, not part of the hash.
   */
  readonly data?: Readonly<Record<string, unknown>> | undefined
}

export interface Evidence extends EvidenceInput {
  readonly id: string
  /** sha256 over kind, ref, note, query, origin: the fingerprint input (R-IMP-3). */
  readonly hash: string
  readonly recordedAt: string
  /** "open" until a proposal that used it is accepted ("used") or the user dismisses it. */
  readonly status: "open" | "used" | "dismissed"
}

export const EVIDENCE_STATUSES: ReadonlyArray<Evidence["status"]> = ["open", "used", "dismissed"]

export const EVIDENCE_SOURCES: ReadonlyArray<EvidenceSource> = ["feedback", "lint", "ledger", "manual", "claude-code", "codex", "opencode", "run", "memory", "search"]

export const isEvidenceKind = (value: string): value is EvidenceKind => (EVIDENCE_KINDS as ReadonlyArray<string>).includes(value)

export interface EvidenceFilter {
  readonly ref?: string | undefined
  readonly kind?: EvidenceKind | undefined
  readonly status?: Evidence["status"] | undefined
  /** Rows whose ref is in this bundle. */
  readonly bundle?: string | undefined
  readonly source?: EvidenceSource | undefined
  readonly limit?: number | undefined
}

/** The kinds that admit `revise` of an existing item. */
export const REVISE_KINDS: ReadonlyArray<EvidenceKind> = ["negative-feedback", "lint-error", "broken-link", "contradiction", "failed-search", "failed-run"]
/** The kinds that admit `learn` of a new item. */
export const LEARN_KINDS: ReadonlyArray<EvidenceKind> = ["recurring-failure", "question", "session"]
