import { randomUUID } from "node:crypto"
import { Effect, Either } from "effect"
import type { Evidence } from "../../domain/Evidence.js"
import type { AttemptOutcome, ImproveRecipe } from "../../domain/Improve.js"
import { autoApplies, type ChangeClass, type EvidenceRef, type Proposal } from "../../domain/Proposal.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { proposalAccept } from "../proposals/accept.js"
import { now } from "../proposals/lookup.js"
import type { Verification } from "./verify.js"

export interface Finished {
  readonly outcome: AttemptOutcome
  readonly reason?: string | undefined
  readonly proposalId?: string | undefined
  readonly metrics: Readonly<Record<string, number>>
  readonly failures: ReadonlyArray<string>
}

/** What a proposal shows of its evidence: kind, id, hash, ref and the (already redacted) note. */
export const evidenceRefs = (rows: ReadonlyArray<Evidence>): ReadonlyArray<EvidenceRef> =>
  rows.map((e) => ({ kind: e.kind, id: e.id, hash: e.hash, ...(e.ref === undefined ? {} : { ref: e.ref }), note: e.query === undefined ? e.note : `${e.note} (query: ${e.query})` }))

/**
 * After verification: a passed candidate becomes a pending proposal carrying
 * the attempt's fingerprint, its evidence and the Level 1/2 evaluation, and is
 * applied at once only when its change class is in policy.autoApply
 * (R-IMP-9: semantic and destructive never are). The verification verdict is
 * the only input that decides; there is no generator score here (R-IMP-8).
 */
export const finishAttempt = (input: {
  readonly recipe: ImproveRecipe
  readonly title: string
  readonly fingerprint: string
  readonly evidence: ReadonlyArray<Evidence>
  readonly verification: Verification
  readonly autoApply: ReadonlyArray<ChangeClass>
}) =>
  Effect.gen(function* () {
    const v = input.verification
    if (v._tag === "NoOp") return { outcome: "no-op", reason: v.reason, metrics: {}, failures: [] } satisfies Finished as Finished
    if (v._tag === "Failed") {
      return { outcome: "gate-failed", reason: `level ${v.level}: ${v.failures.join("; ")}`, metrics: v.metrics, failures: v.failures } satisfies Finished as Finished
    }
    const store = yield* ProposalStore
    const proposal: Proposal = {
      id: randomUUID(),
      title: input.title,
      recipe: input.recipe,
      changeClass: v.changeClass,
      changes: v.changes,
      evidence: evidenceRefs(input.evidence),
      fingerprint: input.fingerprint,
      evaluation: v.evaluation,
      status: "pending",
      createdAt: yield* now
    }
    yield* store.create(proposal)
    const metrics = v.evaluation.metrics ?? {}
    if (!autoApplies(v.changeClass, input.autoApply)) return { outcome: "proposed", proposalId: proposal.id, metrics, failures: [] } satisfies Finished as Finished
    const applied = yield* Effect.either(proposalAccept(proposal.id, { by: "policy", refreshIndex: false }))
    if (Either.isLeft(applied)) return { outcome: "proposed", proposalId: proposal.id, reason: `not applied: ${applied.left.message}`, metrics, failures: [] } satisfies Finished as Finished
    yield* (yield* EvidenceStore).mark(input.evidence.map((e) => e.id), "used")
    return { outcome: "auto-applied", proposalId: proposal.id, metrics, failures: [] } satisfies Finished as Finished
  })
