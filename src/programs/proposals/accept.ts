import { Effect, Either } from "effect"
import { Conflict } from "../../domain/Errors.js"
import { shortId, type Proposal, type ProposalStatus } from "../../domain/Proposal.js"
import { carryListings } from "../../services/BundleFiles.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { StaleBeforeHash, Transaction, type AppliedChange, type ApplyResult } from "../../services/Transaction.js"
import { indexBundles } from "../indexBundles.js"
import { FORMALIZE_RECIPE } from "../memory/recipes.js"
import { bundlesOf, findProposal, now } from "./lookup.js"
import { recordFinished, recoverWrites } from "./recover.js"

/** What accept (and revert) report. */
export interface DecisionResult {
  readonly id: string
  readonly title: string
  readonly status: ProposalStatus
  readonly changes: ReadonlyArray<AppliedChange>
  readonly gitCommits: ReadonlyArray<{ readonly bundle: string; readonly sha: string }>
  readonly warnings: ReadonlyArray<string>
}

/** An engine error as an outcome row: its tag, message and the file it names. */
export const outcomeError = (error: { readonly _tag: string; readonly message: string; readonly path?: string }) => ({
  tag: error._tag,
  message: error.message,
  ...(error.path === undefined ? {} : { path: error.path })
})

const why = (p: Proposal): string =>
  p.status === "failed"
    ? ` (${p.reason ?? "it failed"}); ${p.reason?.includes("changed since") === true ? `carry it onto the current files with \`akm proposal refresh ${shortId(p.id)}\`` : "make it again from the current files"}`
    : p.status === "accepted" ? "; undo it with `akm proposal revert`" : ""

export const notPending = (p: Proposal, verb: string) =>
  new Conflict({ message: `proposal ${shortId(p.id)} is ${p.status}, not pending; only a pending proposal can be ${verb}`, hint: `see \`akm proposal show ${shortId(p.id)}\`${why(p)}` })

/**
 * Spec 05 §2 step 10: the index rows of the changed bundles are refreshed once
 * after the files are final. The change stands whatever happens here: a
 * failed refresh is a warning, and the next `akm index` catches up.
 */
export const refreshIndex = (bundles: ReadonlyArray<string>) =>
  Effect.forEach(bundles, (bundle) =>
    indexBundles({ bundle }).pipe(
      Effect.as<ReadonlyArray<string>>([]),
      Effect.catchAll((error) => Effect.succeed([`the index of bundle '${bundle}' was not refreshed (${error.message}); run \`akm index\``]))
    )).pipe(Effect.map((warnings) => warnings.flat()))

/** The retire phase's transaction id of a two-phase proposal. */
export const retirePhaseId = (id: string): string => `${id}-retire`

/**
 * Applies a proposal's files: at once, or — a memory formalisation into
 * another bundle — two-phase (R-TX-9): the new item is published and
 * validated first, then the sources are retired; if the second phase fails
 * the published copy stays and recovery can resume it (never a loss).
 */
const applyProposal = (transaction: Transaction["Type"], proposal: Proposal) => {
  const publish = proposal.changes.filter((c) => c.delete !== true)
  const retire = proposal.changes.filter((c) => c.delete === true)
  if (proposal.recipe !== FORMALIZE_RECIPE || publish.length === 0 || retire.length === 0) {
    return transaction.apply({ id: proposal.id, changes: proposal.changes, message: proposal.title })
  }
  return Effect.map(
    transaction.twoPhase({ id: proposal.id, changes: publish, message: proposal.title }, { id: retirePhaseId(proposal.id), changes: retire, message: `${proposal.title} (retire the sources)` }),
    ({ publish: published, retire: retired }): ApplyResult => ({
      ...published,
      changes: [...published.changes, ...(retired?.changes ?? [])],
      gitCommits: [...published.gitCommits, ...(retired?.gitCommits ?? [])],
      warnings: [
        ...(published.warnings ?? []),
        ...(retired?.warnings ?? []),
        ...(retired === undefined ? ["the new item is published but its sources were not retired yet; the next akm command resumes that (nothing is lost)"] : [])
      ]
    })
  )
}

/**
 * `akm proposal accept`: recovery first (R-TX-5), then the engine applies the
 * stored bytes exactly as reviewed (R-TX-2), then the outcome and the files
 * as applied (with their backups) are recorded with an event, then the
 * changed bundles' index rows are refreshed once. A stale
 * before-hash or a validation error makes the proposal `failed` and the
 * command fails naming the file; a refusal that says nothing about the
 * proposal itself (a read-only bundle, the lease) leaves it pending. The
 * refresh takes the listing the engine walked and relisted (decision 0038).
 */
export const proposalAccept = Effect.fn("proposal.accept")(function* (idOrPrefix: string, options: { readonly by?: string; readonly refreshIndex?: boolean } = {}) {
  const store = yield* ProposalStore
  const transaction = yield* Transaction
  yield* recoverWrites()
  const proposal = yield* findProposal(idOrPrefix)
  if (proposal.status !== "pending") return yield* notPending(proposal, "accepted")
  const errors = proposal.evaluation?.diagnostics.filter((d) => d.severity === "error") ?? []
  if (proposal.evaluation?.verdict === "fail") {
    const first = errors[0]
    return yield* new Conflict({
      message: `proposal ${shortId(proposal.id)} does not validate${first === undefined ? "" : `: ${first.path}: ${first.message} [${first.code}]`}`,
      hint: first?.code === "merge-conflict"
        ? `it carries merge conflicts: see them with \`akm proposal diff ${shortId(proposal.id)}\`, then give the resolved file with \`akm proposal refresh ${shortId(proposal.id)} --file <path>=@<resolved-file>\``
        : `see \`akm proposal show ${shortId(proposal.id)}\`; reject it and make a corrected one`
    })
  }
  const by = options.by ?? "user"
  const applied = yield* Effect.either(applyProposal(transaction, proposal))
  const at = yield* now
  if (Either.isLeft(applied)) {
    const error = applied.left
    // Another process may have decided (or applied) it while this one waited for the lease.
    yield* recordFinished()
    const current = yield* store.get(proposal.id)
    if (current !== undefined && current.status !== "pending") return yield* notPending(current, "accepted")
    if (error._tag === "StaleBeforeHash" || error._tag === "ValidationFailed") {
      yield* store.decide(proposal.id, { from: ["pending"], to: "failed", at, by, reason: error.message, outcome: { error: outcomeError(error) } })
    } else {
      yield* store.refused(proposal.id, at, outcomeError(error))
    }
    // A stale file is not the end of a reviewed change: refresh carries it onto the current bytes.
    if (error._tag === "StaleBeforeHash") {
      return yield* new StaleBeforeHash({ ...error, hint: `carry it forward onto the current files with \`akm proposal refresh ${shortId(proposal.id)}\` (a three-way merge into a new proposal for review)` })
    }
    return yield* Effect.fail(error)
  }
  const result = applied.right
  // The files are the truth: a reject that raced this accept loses to the applied change.
  yield* store.decide(proposal.id, {
    from: ["pending", "rejected", "expired", "failed"],
    to: "accepted",
    at,
    by,
    outcome: {
      changes: result.changes,
      gitCommits: result.gitCommits,
      ...(result.warnings === undefined || result.warnings.length === 0 ? {} : { note: result.warnings.join("; ") }),
      ...(result.createdDirs === undefined || result.createdDirs.length === 0 ? {} : { createdDirs: result.createdDirs })
    }
  })
  yield* transaction.acknowledge(proposal.id, "apply")
  if (proposal.recipe === FORMALIZE_RECIPE) yield* transaction.acknowledge(retirePhaseId(proposal.id), "retire")
  // Sets this accept's own recovery finished for other proposals.
  yield* recordFinished()
  // Recorded before the index refresh: the tree and state.db disagree for as short a time as possible.
  // An improve run applies several and refreshes once at its end (R-IMP-5).
  const warnings = [...(result.warnings ?? []), ...(options.refreshIndex === false ? [] : yield* refreshIndex(bundlesOf(proposal)))]
  return {
    id: proposal.id,
    title: proposal.title,
    status: "accepted",
    changes: result.changes,
    gitCommits: result.gitCommits,
    warnings
  } satisfies DecisionResult as DecisionResult
}, carryListings)
