import { Effect } from "effect"
import type { ProposalStatus } from "../../domain/Proposal.js"
import { ProposalStore, type ProposalSummary } from "../../services/ProposalStore.js"
import { now } from "./lookup.js"

/** Pending proposals older than this expire (spec 05 §3, `proposals.retentionDays`). */
export const PROPOSAL_RETENTION_DAYS = 90

export interface ProposalListInput {
  readonly status?: ProposalStatus | undefined
  readonly recipe?: string | undefined
  readonly bundle?: string | undefined
}

/** Pending proposals past the retention become `expired` (returns their ids). */
export const expirePending = Effect.fn("proposal.expire")(function* () {
  const store = yield* ProposalStore
  const at = yield* now
  return yield* store.expire(new Date(Date.parse(at) - PROPOSAL_RETENTION_DAYS * 86_400_000).toISOString(), at)
})

/** `akm proposal list`: newest first, after expiring pending proposals past their retention. */
export const proposalList = Effect.fn("proposal.list")(function* (input: ProposalListInput) {
  const store = yield* ProposalStore
  yield* expirePending()
  const proposals = yield* store.list(input)
  return { proposals } as { readonly proposals: ReadonlyArray<ProposalSummary> }
})
