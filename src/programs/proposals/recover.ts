import { Effect } from "effect"
import { ProposalStore } from "../../services/ProposalStore.js"
import { Transaction, TransactionRefused, type RecoveryReport } from "../../services/Transaction.js"
import { now } from "./lookup.js"

const note = "finished by recovery after an interrupted run"
/** How accept names the retire phase of a two-phase proposal (accept.ts retirePhaseId). */
const RETIRE_SUFFIX = "-retire"

/**
 * Brings proposals in line with the sets the engine finished (spec 05 §2
 * step 12): a finished apply makes its proposal accepted — whatever a
 * reject or a stale accept said meanwhile, the files are the truth — and a
 * finished revert makes it reverted, each with the files exactly as the
 * journal recorded them. Only a proposal whose own journal says it was
 * applied is recorded so (never one whose after-bytes merely happen to be
 * there). Each record is acknowledged only after it is made, so a crash in
 * between is caught up by the next command.
 */
export const recordFinished = Effect.fn("proposal.recordFinished")(function* () {
  const transaction = yield* Transaction
  const store = yield* ProposalStore
  const sets = yield* transaction.finished
  // The retire phase of a two-phase proposal (`<id>-retire`) belongs to that proposal's record, so a revert undoes both phases.
  const retires = new Map(sets.flatMap((s) => (s.op === "retire" && s.id.endsWith(RETIRE_SUFFIX) ? [[s.id.slice(0, -RETIRE_SUFFIX.length), s] as const] : [])))
  for (const set of sets) {
    if (set.op === "retire" && retires.get(set.id.slice(0, -RETIRE_SUFFIX.length)) === set) {
      const owner = yield* store.get(set.id.slice(0, -RETIRE_SUFFIX.length))
      const applied = owner?.status === "accepted" ? yield* store.applied(owner.id) : undefined
      // Accepted earlier with the publish only (its retire was resumed later): the record gains the retirements.
      if (owner !== undefined && applied !== undefined && !set.changes.every((c) => applied.some((a) => a.bundle === c.bundle && a.path === c.path))) {
        yield* store.decide(owner.id, { from: ["accepted"], to: "accepted", at: yield* now, by: "recovery", outcome: { changes: [...applied, ...set.changes], gitCommits: [], note } })
      }
    }
    const proposal = yield* store.get(set.id)
    if (proposal !== undefined) {
      const at = yield* now
      if (set.op === "apply" && proposal.status !== "accepted" && proposal.status !== "reverted") {
        const retired = retires.get(set.id)?.changes ?? []
        yield* store.decide(set.id, { from: ["pending", "rejected", "expired", "failed"], to: "accepted", at, by: "recovery", outcome: { changes: [...set.changes, ...retired], gitCommits: [], note, ...(set.createdDirs === undefined || set.createdDirs.length === 0 ? {} : { createdDirs: set.createdDirs }) } })
      } else if (set.op === "revert" && proposal.status === "accepted") {
        yield* store.decide(set.id, { from: ["accepted"], to: "reverted", at, by: "recovery", outcome: { changes: set.changes, gitCommits: [], note } })
      }
    }
    yield* transaction.acknowledge(set.id, set.op)
  }
})

/**
 * Runs at the start of every writing command (R-TX-5): the engine resolves
 * unfinished journals, then the proposals of every finished set — rolled
 * forward now, or finished earlier by any process without its outcome
 * recorded — are brought in line with the tree. A journal rolled back leaves
 * the proposal as it was, since nothing of it remains on disk. A damaged
 * journal stops the command (`damagedRefusal`).
 */
export const recoverWrites = Effect.fn("proposal.recover")(function* () {
  const report = yield* (yield* Transaction).recover
  yield* recordFinished()
  const damaged = report.refused.find((r) => r.damaged === true)
  if (damaged !== undefined) return yield* damagedRefusal(damaged)
  return report
})

/** Whether a recovery left every file as it was: no journal rolled back, forward or partly resolved. */
export const recoveredNothing = (report: RecoveryReport): boolean =>
  report.rolledBack.length === 0 && report.rolledForward.length === 0 && report.refused.length === 0

/**
 * A writer never goes ahead past a transaction recovery could not account
 * for: its files may be half-written, and its proposal's record cannot follow
 * them. The error names it and the way out.
 */
export const damagedRefusal = (damaged: { readonly id: string; readonly reason: string }) =>
  new TransactionRefused({
    path: damaged.id,
    reason: `transaction ${damaged.id} was interrupted and its journal cannot be used (${damaged.reason}); akm writes nothing until it is resolved`,
    hint: `run \`akm proposal recover ${damaged.id} --rollback\` to put its files back from the backups (or --forward to finish it); \`akm health\` lists such transactions`
  })
