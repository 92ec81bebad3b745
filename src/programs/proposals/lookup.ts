import { Clock, Effect } from "effect"
import { NotFound, UsageError } from "../../domain/Errors.js"
import { shortId, SHORT_ID_LENGTH, type Proposal } from "../../domain/Proposal.js"
import { ProposalStore } from "../../services/ProposalStore.js"

/** The current time as stored (ISO 8601, UTC); from the Clock so tests control it. */
export const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

const MAX_MATCHES = 10

/**
 * A proposal by its full id or a prefix of at least 8 characters (the short
 * id): unknown → NotFound (exit 1), several matches → UsageError listing them
 * (exit 2).
 */
export const findProposal = Effect.fn("proposal.find")(function* (idOrPrefix: string) {
  const store = yield* ProposalStore
  const wanted = idOrPrefix.trim().toLowerCase()
  if (wanted.length < SHORT_ID_LENGTH) {
    return yield* new UsageError({ message: `'${idOrPrefix}' is too short for a proposal id`, hint: `give at least ${SHORT_ID_LENGTH} characters of the id (see \`akm proposal list\`)` })
  }
  const ids = yield* store.idsStartingWith(wanted, MAX_MATCHES)
  if (ids.length > 1) {
    return yield* new UsageError({ message: `'${idOrPrefix}' matches several proposals: ${ids.join(", ")}`, hint: "give more characters of the id" })
  }
  const proposal = ids[0] === undefined ? undefined : yield* store.get(ids[0])
  if (proposal === undefined) {
    return yield* new NotFound({ what: "proposal", name: idOrPrefix, message: `no proposal with id '${idOrPrefix}'`, hint: "list proposals with `akm proposal list`" })
  }
  return proposal satisfies Proposal as Proposal
})

/** The distinct bundles a proposal touches, in order of first appearance. */
export const bundlesOf = (proposal: Pick<Proposal, "changes">): ReadonlyArray<string> => [...new Set(proposal.changes.map((c) => c.bundle))]

export const label = (proposal: Pick<Proposal, "id" | "title">): string => `${shortId(proposal.id)} (${proposal.title})`
