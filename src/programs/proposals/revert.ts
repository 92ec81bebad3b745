import { Effect, Either } from "effect"
import { Conflict } from "../../domain/Errors.js"
import { shortId } from "../../domain/Proposal.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { Transaction } from "../../services/Transaction.js"
import { outcomeError, refreshIndex, type DecisionResult } from "./accept.js"
import { bundlesOf, findProposal, now } from "./lookup.js"
import { recordFinished, recoverWrites } from "./recover.js"

/**
 * `akm proposal revert` (R-TX-6): restores the bytes an accepted proposal
 * replaced (and removes the files it created, then the directories it created
 * for them that are empty now) when every file still holds the
 * accepted bytes; a file edited since makes the engine refuse, naming it, and
 * the proposal stays accepted.
 */
export const proposalRevert = Effect.fn("proposal.revert")(function* (idOrPrefix: string, options: { readonly by?: string } = {}) {
  const store = yield* ProposalStore
  const transaction = yield* Transaction
  yield* recoverWrites()
  const proposal = yield* findProposal(idOrPrefix)
  if (proposal.status !== "accepted") {
    return yield* new Conflict({ message: `proposal ${shortId(proposal.id)} is ${proposal.status}; only an accepted proposal can be reverted`, hint: `see \`akm proposal show ${shortId(proposal.id)}\`` })
  }
  const applied = yield* store.applied(proposal.id)
  if (applied === undefined || applied.length === 0) {
    return yield* new Conflict({ message: `proposal ${shortId(proposal.id)} has no record of the files it changed`, hint: "revert the files by hand" })
  }
  // The directories its accept created (recorded since they were tracked; older outcomes have none).
  const createdDirs = (yield* store.outcomes(proposal.id)).findLast((o) => o.kind === "accepted")?.createdDirs ?? []
  const reverted = yield* Effect.either(transaction.revert({ id: proposal.id, changes: applied, message: `Revert: ${proposal.title}`, createdDirs }))
  const at = yield* now
  if (Either.isLeft(reverted)) {
    yield* store.refused(proposal.id, at, outcomeError(reverted.left))
    return yield* Effect.fail(reverted.left)
  }
  const result = reverted.right
  yield* store.decide(proposal.id, {
    from: ["accepted"],
    to: "reverted",
    at,
    by: options.by ?? "user",
    outcome: { changes: result.changes, gitCommits: result.gitCommits, ...(result.warnings === undefined || result.warnings.length === 0 ? {} : { note: result.warnings.join("; ") }) }
  })
  yield* transaction.acknowledge(proposal.id, "revert")
  yield* recordFinished()
  const warnings = [...(result.warnings ?? []), ...(yield* refreshIndex(bundlesOf(proposal)))]
  return {
    id: proposal.id,
    title: proposal.title,
    status: "reverted",
    changes: result.changes,
    gitCommits: result.gitCommits,
    warnings
  } satisfies DecisionResult as DecisionResult
})
