import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { Conflict, UsageError } from "../../domain/Errors.js"
import type { Diagnostic } from "../../domain/Diagnostic.js"
import type { FileChange } from "../../domain/FileChange.js"
import { fingerprint, type ChangeClass, type Evaluation, type EvidenceRef, type Proposal } from "../../domain/Proposal.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { keepBases } from "./bases.js"
import { resolveBundle } from "../scan.js"
import { evaluateChanges } from "./evaluate.js"
import { refuseSecretValues } from "./secretGuard.js"
import { bundlesOf, now } from "./lookup.js"
import { shellCommand } from "../../domain/ShellQuote.js"

export interface ProposeInput {
  readonly title: string
  /** "remember", "import", "create", "lint-fix", "manual", … */
  readonly recipe: string
  readonly recipeVersion?: string | undefined
  readonly changeClass: ChangeClass
  readonly changes: ReadonlyArray<FileChange>
  readonly evidence?: ReadonlyArray<EvidenceRef> | undefined
  /** "user" for changes a person wrote or asked for; else the generator's id. */
  readonly generator?: string | undefined
  /** Findings the caller already has (a refresh's merge conflicts): errors among them block accept like validation errors. */
  readonly findings?: ReadonlyArray<Diagnostic> | undefined
}

/** A stored proposal and the refs of the items it touches. */
export interface Proposed {
  readonly proposal: Proposal
  readonly refs: ReadonlyArray<string>
}

const withFindings = (evaluation: Evaluation, findings: ReadonlyArray<Diagnostic>): Evaluation =>
  findings.length === 0
    ? evaluation
    : { ...evaluation, verdict: findings.some((d) => d.severity === "error") ? "fail" : evaluation.verdict, diagnostics: [...findings, ...evaluation.diagnostics] }

/** Rejects sets the engine could never apply, before anything is stored. */
const checkShape = (changes: ReadonlyArray<FileChange>) =>
  Effect.gen(function* () {
    if (changes.length === 0) return yield* new UsageError({ message: "a proposal needs at least one file change", hint: "name the files to change" })
    const seen = new Set<string>()
    for (const c of changes) {
      const key = `${c.bundle}//${c.path}`
      if (seen.has(key)) return yield* new UsageError({ message: `${key} is changed twice in one proposal`, hint: "merge the changes to one file into one" })
      seen.add(key)
      if ((c.after === undefined) === (c.delete !== true)) return yield* new UsageError({ message: `${key}: a change needs new bytes or delete, not both or neither`, hint: "this is a bug in the code that built the change" })
    }
  })

/**
 * Makes a proposal (spec 05 §1): checks the target bundles are writable,
 * validates the changes with their adapters on the overlay (the evaluation;
 * errors block accept), fingerprints the work and stores the exact bytes
 * (R-TX-2). Nothing in a bundle is written.
 */
export const propose = Effect.fn("proposal.propose")(function* (input: ProposeInput) {
  const store = yield* ProposalStore
  yield* checkShape(input.changes)
  for (const bundle of bundlesOf(input)) {
    const { info, adapter } = yield* resolveBundle(bundle)
    if (!info.writable) return yield* new Conflict({ message: `bundle '${bundle}' is read-only`, hint: `write to a writable bundle, or make this one writable: ${shellCommand("akm config set", `bundles.${bundle}.writable`, "true")}` })
    if (!adapter.writable) return yield* new Conflict({ message: `the ${adapter.id} adapter of bundle '${bundle}' has no authoring path`, hint: "write to a bundle whose adapter can author files (akm, okf, …)" })
    for (const change of input.changes) if (change.bundle === bundle) yield* refuseSecretValues(change, adapter.id)
  }
  const evaluated = yield* evaluateChanges(input.changes)
  yield* keepBases(input.changes)
  const evidence = input.evidence ?? []
  const generator = input.generator ?? "user"
  const proposal: Proposal = {
    id: randomUUID(),
    title: input.title,
    recipe: input.recipe,
    changeClass: input.changeClass,
    changes: input.changes,
    evidence,
    fingerprint: fingerprint({
      recipe: input.recipe,
      recipeVersion: input.recipeVersion ?? "1",
      targets: input.changes,
      evidence,
      guidance: evaluated.guidance,
      evaluatorVersion: evaluated.evaluator,
      generator
    }),
    evaluation: withFindings(evaluated.evaluation, input.findings ?? []),
    status: "pending",
    createdAt: yield* now
  }
  yield* store.create(proposal)
  return { proposal, refs: evaluated.refs } satisfies Proposed as Proposed
})
