import { Effect } from "effect"
import { Conflict, UsageError } from "../../domain/Errors.js"
import { sha256Hex, shortId, type ProposalStatus } from "../../domain/Proposal.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { Transaction, type ResolveRequest, type ResolveTarget } from "../../services/Transaction.js"
import { refreshIndex } from "./accept.js"
import { findProposal, now } from "./lookup.js"
import { recordFinished } from "./recover.js"

/** What `akm proposal recover` reports. */
export interface RecoverResult {
  readonly transaction: string
  /** The proposal the transaction belongs to, when there is one. */
  readonly proposal: { readonly id: string; readonly title: string; readonly status: ProposalStatus } | null
  readonly op: "apply" | "revert" | "retire" | "unknown"
  readonly direction: "rollback" | "forward"
  readonly restored: ReadonlyArray<string>
  readonly problems: ReadonlyArray<string>
}

const encoder = new TextEncoder()

/** The transaction an id names: a damaged transaction's id (or a unique prefix of one), else a proposal's. */
const transactionOf = (given: string) =>
  Effect.gen(function* () {
    const damaged = [...new Set((yield* (yield* Transaction).inspect).map((d) => d.id))]
    if (damaged.includes(given)) return given
    const matches = damaged.filter((id) => id.toLowerCase().startsWith(given.toLowerCase()))
    if (matches.length === 1) return matches[0]!
    if (matches.length > 1) return yield* new UsageError({ message: `'${given}' matches several transactions: ${matches.join(", ")}`, hint: "give more of the id" })
    return (yield* findProposal(given)).id
  })

/**
 * `akm proposal recover <txn-or-proposal-id> --rollback|--forward`: resolves
 * a transaction recovery would not act on (an unreadable or forged journal),
 * which otherwise keeps every writer out. Each file provably at one end of
 * the change is brought to the end asked for, from the backups (or the
 * proposal's own bytes); anything else is left and named. The proposal's
 * record then follows the bytes: a forward apply is accepted, a forward
 * revert reverted, a rollback leaves it as it was. The journal goes (or is
 * kept in txn/.unresolved/ when something was left).
 */
export const proposalRecover = Effect.fn("proposal.recoverTransaction")(function* (given: string, direction: "rollback" | "forward") {
  const transaction = yield* Transaction
  const store = yield* ProposalStore
  // Whatever recovery can do by itself first; the damaged transactions are this command's to resolve.
  yield* transaction.recover
  yield* recordFinished()
  const id = yield* transactionOf(given)
  const proposal = yield* store.get(id)
  let fallback: ResolveRequest["fallback"]
  if (proposal !== undefined && proposal.status === "accepted") {
    const applied = (yield* store.applied(id)) ?? []
    fallback = { op: "revert", targets: applied.map((a): ResolveTarget => ({ bundle: a.bundle, path: a.path, beforeHash: a.afterHash, afterHash: a.beforeHash })) }
  } else if (proposal !== undefined) {
    fallback = {
      op: "apply",
      targets: proposal.changes.map((c): ResolveTarget => ({
        bundle: c.bundle,
        path: c.path,
        beforeHash: c.beforeHash,
        afterHash: c.after === undefined ? null : sha256Hex(c.after),
        ...(c.after === undefined ? {} : { after: typeof c.after === "string" ? encoder.encode(c.after) : c.after })
      }))
    }
  }
  const result = yield* transaction.resolve({ id, direction, ...(fallback === undefined ? {} : { fallback }) })
  let status = proposal?.status
  if (proposal !== undefined && result.problems.length === 0 && direction === "forward") {
    const at = yield* now
    const outcome = { changes: result.changes, gitCommits: [], note: "finished by `akm proposal recover --forward`" }
    if (result.op === "apply" && status !== "accepted" && status !== "reverted") {
      status = (yield* store.decide(id, { from: ["pending", "rejected", "expired", "failed"], to: "accepted", at, by: "user", outcome })).moved ? "accepted" : status
    } else if (result.op === "revert" && status === "accepted") {
      status = (yield* store.decide(id, { from: ["accepted"], to: "reverted", at, by: "user", outcome })).moved ? "reverted" : status
    }
  }
  if (result.restored.length > 0) yield* refreshIndex([...new Set(result.changes.map((c) => c.bundle))])
  const report: RecoverResult = {
    transaction: id,
    proposal: proposal === undefined ? null : { id: proposal.id, title: proposal.title, status: status ?? proposal.status },
    op: result.op,
    direction,
    restored: result.restored,
    problems: result.problems
  }
  if (result.problems.length > 0) {
    return yield* new Conflict({
      message: `transaction ${id} was resolved only partly: ${result.problems.join("; ")}`,
      hint: `the journal was kept in txn/.unresolved/ and no longer blocks writes; fix the files named by hand${proposal === undefined ? "" : `, then check \`akm proposal show ${shortId(id)}\``}`
    })
  }
  return report
})
