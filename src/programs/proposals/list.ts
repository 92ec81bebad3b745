import { Effect } from "effect"
import type { ProposalStatus } from "../../domain/Proposal.js"
import { ProposalStore, type ProposalSummary } from "../../services/ProposalStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleNotFound } from "../bundle/show.js"
import { now } from "./lookup.js"

/** Pending proposals older than this expire unless config `proposals.retentionDays` says otherwise (spec 05 §3). */
export const PROPOSAL_RETENTION_DAYS = 90

export interface ProposalListInput {
  readonly status?: ProposalStatus | undefined
  readonly recipe?: string | undefined
  readonly bundle?: string | undefined
}

/** Pending proposals past the retention become `expired` (returns their ids). */
export const expirePending = Effect.fn("proposal.expire")(function* () {
  const store = yield* ProposalStore
  const config = yield* (yield* WorkspaceConfig).read
  const days = config.proposals?.retentionDays ?? PROPOSAL_RETENTION_DAYS
  const at = yield* now
  return yield* store.expire(new Date(Date.parse(at) - days * 86_400_000).toISOString(), at)
})

/** `akm proposal list`: newest first, after expiring pending proposals past their retention. */
export const proposalList = Effect.fn("proposal.list")(function* (input: ProposalListInput) {
  const store = yield* ProposalStore
  yield* expirePending()
  const proposals = yield* store.list(input)
  // A bundle neither configured nor named by any proposal is a typo, not an empty list.
  if (input.bundle !== undefined && proposals.length === 0) {
    const configured = Object.keys((yield* (yield* WorkspaceConfig).read).bundles)
    if (!configured.includes(input.bundle) && (yield* store.list({ bundle: input.bundle })).length === 0) return yield* bundleNotFound(input.bundle, configured)
  }
  return { proposals } as { readonly proposals: ReadonlyArray<ProposalSummary> }
})
