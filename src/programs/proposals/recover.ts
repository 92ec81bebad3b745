import { Effect } from "effect"
import { appliedFileOf, type AppliedFile } from "../../domain/Proposal.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { Transaction } from "../../services/Transaction.js"
import { now } from "./lookup.js"

/** The files of a finished revert: each accepted file back to its before-bytes. */
const revertedFiles = (applied: ReadonlyArray<AppliedFile>): ReadonlyArray<AppliedFile> =>
  applied.map((a) => ({ bundle: a.bundle, path: a.path, beforeHash: a.afterHash, afterHash: a.beforeHash, ...(a.afterHash === null ? {} : { backup: a.afterHash }) }))

/**
 * Runs at the start of every writing command (R-TX-5): the engine resolves
 * unfinished journals, then the proposals they belong to are brought in line
 * with the tree. A journal finished by recovery was an accept when its
 * proposal is still pending, a revert when it is accepted; one rolled back
 * leaves the proposal as it was, since nothing of it remains on disk.
 */
export const recoverWrites = Effect.fn("proposal.recover")(function* () {
  const transaction = yield* Transaction
  const store = yield* ProposalStore
  const report = yield* transaction.recover
  for (const id of report.rolledForward) {
    const proposal = yield* store.get(id)
    if (proposal === undefined) continue
    const at = yield* now
    const note = "finished by recovery after an interrupted run"
    if (proposal.status === "pending") {
      // Backups are content-addressed: the replaced bytes' hash is the before-hash the engine verified.
      yield* store.decide(id, { from: ["pending"], to: "accepted", at, by: "recovery", outcome: { changes: proposal.changes.map(appliedFileOf), gitCommits: [], note } })
    } else if (proposal.status === "accepted") {
      const applied = (yield* store.applied(id)) ?? []
      yield* store.decide(id, { from: ["accepted"], to: "reverted", at, by: "recovery", outcome: { changes: revertedFiles(applied), gitCommits: [], note } })
    }
  }
  return report
})
