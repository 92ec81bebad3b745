import { sha256Hex } from "./Digest.js"
import type { Diagnostic } from "./Diagnostic.js"
import type { FileChange } from "./FileChange.js"

/**
 * A proposal: an explicit set of file changes with what justified it, waiting
 * for a decision or already decided (spec 05 §1). Every write akm makes is one,
 * so every change has the same audit trail and can be reverted.
 */

export const PROPOSAL_STATUSES = ["pending", "accepted", "rejected", "reverted", "expired", "failed"] as const
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number]

/** How much judgement a change needs; the auto-apply policy is keyed by it (R-IMP-9). */
export const CHANGE_CLASSES = ["mechanical", "verified-semantic", "semantic", "destructive"] as const
export type ChangeClass = (typeof CHANGE_CLASSES)[number]

/** What justified a proposal: an evidence row, a diagnostic, the user's own input. */
export interface EvidenceRef {
  /** "user", "lint-error", "negative-feedback", … */
  readonly kind: string
  readonly id: string
  /** sha256 of the evidence's content when it has one (it feeds the fingerprint). */
  readonly hash?: string
  readonly ref?: string
  readonly note?: string
}

/** The result of validating a proposal's changes on the overlay (the tree as it would be after them). */
export interface Evaluation {
  /** "fail" blocks accept. */
  readonly verdict: "pass" | "fail"
  /** Findings the changes introduce (errors make the verdict "fail"). */
  readonly diagnostics: ReadonlyArray<Diagnostic>
  readonly metrics?: Readonly<Record<string, number>>
  /** Who evaluated, with its version ("adapter:okf@1"); part of the fingerprint. */
  readonly evaluator: string
  readonly at: string
}

/**
 * One file as the engine applied (or reverted) it: the engine's AppliedChange
 * as recorded with the proposal. `backup` names the replaced bytes in the
 * content-addressed blob store, so revert can restore them (R-TX-6).
 */
export interface AppliedFile {
  readonly bundle: string
  readonly path: string
  readonly beforeHash: string | null
  /** null = the change deleted the file. */
  readonly afterHash: string | null
  readonly backup?: string
}

export interface Proposal {
  /** A uuid; its first 8 characters work as a short id. */
  readonly id: string
  readonly title: string
  /** "remember", "import", "create", "lint-fix", "manual", "revise", … */
  readonly recipe: string
  readonly changeClass: ChangeClass
  /** The exact bytes that were reviewed are the bytes applied (R-TX-2). */
  readonly changes: ReadonlyArray<FileChange>
  readonly evidence: ReadonlyArray<EvidenceRef>
  readonly fingerprint: string
  readonly evaluation?: Evaluation
  readonly status: ProposalStatus
  readonly createdAt: string
  readonly decidedAt?: string
  /** "user", "policy" (auto-applied), "recovery" (completed after a crash), "expiry". */
  readonly decidedBy?: string
  /** Why it was rejected or failed. */
  readonly reason?: string
  /** Content-addressed copies of replaced bytes, once accepted (for revert). */
  readonly backup?: ReadonlyArray<{ readonly bundle: string; readonly path: string; readonly hash: string }>
}

export const SHORT_ID_LENGTH = 8

export const shortId = (id: string): string => id.slice(0, SHORT_ID_LENGTH)

/**
 * The lifecycle: pending → accepted | rejected | failed | expired; accepted →
 * reverted. Every other status is final. A stale before-hash or a validation
 * error makes a pending proposal `failed`: the reviewed bytes can no longer be
 * applied as reviewed (R-TX-2), so the recipe (or the user) makes a new one.
 */
const NEXT: Readonly<Record<ProposalStatus, ReadonlyArray<ProposalStatus>>> = {
  pending: ["accepted", "rejected", "failed", "expired"],
  accepted: ["reverted"],
  rejected: [],
  reverted: [],
  expired: [],
  failed: []
}

export const canMove = (from: ProposalStatus, to: ProposalStatus): boolean => NEXT[from].includes(to)

/** What a change does to its file, for listings. */
export type FileAction = "create" | "update" | "delete"

export const actionOf = (change: FileChange): FileAction =>
  change.delete === true ? "delete" : change.beforeHash === null ? "create" : "update"

export { sha256Hex }

/** The engine's record of a change that was applied by a run we did not see finish (recovery): backups are named by the replaced bytes' hash. */
export const appliedFileOf = (change: FileChange): AppliedFile => ({
  bundle: change.bundle,
  path: change.path,
  beforeHash: change.beforeHash,
  afterHash: change.after === undefined ? null : sha256Hex(change.after),
  ...(change.beforeHash === null ? {} : { backup: change.beforeHash })
})

// --- auto-apply policy (R-IMP-9) ---------------------------------------------------------------

/** Classes applied without review unless `policy.autoApply` says otherwise. */
export const DEFAULT_AUTO_APPLY: ReadonlyArray<ChangeClass> = ["mechanical"]

/** Classes that always go to the review queue, whatever the policy lists. */
const NEVER_AUTO_APPLIED: ReadonlyArray<ChangeClass> = ["semantic", "destructive"]

export const autoApplies = (changeClass: ChangeClass, autoApply: ReadonlyArray<ChangeClass>): boolean =>
  !NEVER_AUTO_APPLIED.includes(changeClass) && autoApply.includes(changeClass)

/** `policy.autoApply` from the config's policy section: a list of change classes, or why it is not one. */
export const autoApplyPolicy = (policy: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<ChangeClass> | { readonly reason: string } => {
  const value = policy?.["autoApply"]
  if (value === undefined) return DEFAULT_AUTO_APPLY
  if (!Array.isArray(value)) return { reason: "must be a list of change classes" }
  const unknown = value.filter((v) => !(CHANGE_CLASSES as ReadonlyArray<unknown>).includes(v))
  if (unknown.length > 0) return { reason: `unknown change class ${unknown.map((v) => JSON.stringify(v)).join(", ")}; known: ${CHANGE_CLASSES.join(", ")}` }
  return value as ReadonlyArray<ChangeClass>
}

// --- fingerprint (spec 06 §3) ------------------------------------------------------------------

export interface FingerprintInput {
  readonly recipe: string
  readonly recipeVersion: string
  /** The files the proposal targets, with the bytes it was made from (null = did not exist). */
  readonly targets: ReadonlyArray<{ readonly bundle: string; readonly path: string; readonly beforeHash: string | null }>
  readonly evidence: ReadonlyArray<{ readonly id: string; readonly hash?: string | undefined }>
  /** The adapter's rule and guidance hashes (AuthoringContext.ruleHash, guidance[].hash). */
  readonly guidance: ReadonlyArray<string>
  readonly evaluatorVersion: string
  /** "user" for hand-made changes, else the generator's id (model, rule engine). */
  readonly generator: string
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * sha256(recipe@version, sorted target before-hashes, evidence ids and hashes,
 * adapter rule/guidance hashes, evaluator version, generator id). Order-free
 * in its lists and unambiguous (a JSON array, not concatenation), so the same
 * work has the same fingerprint and any changed input opens a new attempt
 * (R-IMP-3).
 */
export const fingerprint = (input: FingerprintInput): string => {
  const targets = input.targets
    .map((t) => JSON.stringify([t.bundle.normalize("NFC"), t.path.normalize("NFC"), t.beforeHash]))
    .sort(byText)
  const evidence = input.evidence.map((e) => JSON.stringify([e.id, e.hash ?? null])).sort(byText)
  const guidance = [...input.guidance].sort(byText)
  return sha256Hex(JSON.stringify(["akm-fingerprint/1", input.recipe, input.recipeVersion, targets, evidence, guidance, input.evaluatorVersion, input.generator]))
}
