import { Effect } from "effect"
import type { Proposal } from "../../domain/Proposal.js"
import { ProposalStore, type ProposalOutcome } from "../../services/ProposalStore.js"
import { fileDiffs, type FileDiff } from "./diff.js"
import { findProposal } from "./lookup.js"

/** A proposal as `proposal show` (and `proposal new`) print it: everything but the raw bytes. */
export interface ProposalView extends Omit<Proposal, "changes" | "backup"> {
  readonly files: ReadonlyArray<FileDiff>
  readonly outcomes: ReadonlyArray<ProposalOutcome>
}

export const proposalView = Effect.fn("proposal.view")(function* (proposal: Proposal) {
  const store = yield* ProposalStore
  const { changes: _changes, backup: _backup, ...rest } = proposal
  return { ...rest, files: yield* fileDiffs(proposal), outcomes: yield* store.outcomes(proposal.id) } satisfies ProposalView as ProposalView
})

/** `akm proposal show`: evidence, evaluation, what happened to it, and a diff per file. */
export const proposalShow = Effect.fn("proposal.show")(function* (idOrPrefix: string) {
  return yield* proposalView(yield* findProposal(idOrPrefix))
})
