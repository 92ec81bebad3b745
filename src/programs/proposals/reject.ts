import { Effect } from "effect"
import { UsageError } from "../../domain/Errors.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { notPending } from "./accept.js"
import { findProposal, now } from "./lookup.js"
import { recoverWrites } from "./recover.js"

/** `akm proposal reject`: a pending proposal is closed with a reason; nothing in a bundle changes. */
export const proposalReject = Effect.fn("proposal.reject")(function* (idOrPrefix: string, reason: string, options: { readonly by?: string } = {}) {
  const store = yield* ProposalStore
  if (reason.trim() === "") return yield* new UsageError({ message: "a rejection needs a reason", hint: "say why with --reason \"…\"; it is kept with the proposal" })
  // A crashed accept of it may be finished on disk: the record must follow the bytes first.
  yield* recoverWrites()
  const proposal = yield* findProposal(idOrPrefix)
  if (proposal.status !== "pending") return yield* notPending(proposal, "rejected")
  const at = yield* now
  const decided = yield* store.decide(proposal.id, { from: ["pending"], to: "rejected", at, by: options.by ?? "user", reason: reason.trim() })
  // Another process decided it between the read and the write.
  if (!decided.moved) return yield* notPending({ ...proposal, status: decided.status ?? proposal.status }, "rejected")
  return { id: proposal.id, title: proposal.title, status: "rejected" as const, reason: reason.trim() }
})
