import { Context, type Effect } from "effect"
import type { Conflict, ConfigInvalid, DatabaseTooNew, NotFound, UsageError, WorkspaceUnavailable } from "../domain/Errors.js"
import type { ImproveRecipe, RunRecord } from "../domain/Improve.js"

export interface ImproveInput {
  readonly recipe?: ImproveRecipe | undefined
  /** Only evidence about this ref (revise). */
  readonly ref?: string | undefined
  /** revise: only items of this bundle; learn: write new items here. */
  readonly bundle?: string | undefined
  /** At most this many targets get an attempt (default 10). */
  readonly limit?: number | undefined
  /** Print what would be attempted; write nothing, call no generator (R-IMP-6). */
  readonly dryRun?: boolean | undefined
  /** Exit at once when another run holds the lease (R-IMP-4). */
  readonly skipIfLocked?: boolean | undefined
  /** Stop starting new attempts after this long. */
  readonly budgetMs?: number | undefined
  /** Attempt fingerprints that already settled (R-IMP-3). */
  readonly force?: boolean | undefined
}

export type ImproveResult =
  | { readonly _tag: "Ran"; readonly run: RunRecord }
  | { readonly _tag: "Locked"; readonly holder: string }

export interface SubmitResult {
  readonly packetId: string
  readonly proposalId?: string | undefined
  /** "proposed", "auto-applied", "gate-failed", "no-op". */
  readonly outcome: string
  readonly failures: ReadonlyArray<string>
  readonly metrics: Readonly<Record<string, number>>
}

export type ImproveError = UsageError | ConfigInvalid | NotFound | Conflict | WorkspaceUnavailable | DatabaseTooNew

/**
 * Improve (spec 06): corrective evidence → targets → one frozen snapshot →
 * a generator's candidate → Level 1 safety and Level 2 sandbox comparison →
 * a proposal (auto-applied only as policy.autoApply allows, R-IMP-9).
 * Nothing a generator says — score, rationale, confidence — decides
 * anything (R-IMP-8). The live layer composes EvidenceStore, Generator, a
 * sandbox IndexStore, Transaction and ProposalStore; an embedding program
 * provides its own Generator.
 */
export class Improve extends Context.Tag("akm/Improve")<Improve, {
  readonly run: (input: ImproveInput) => Effect.Effect<ImproveResult, ImproveError>
  /** Run records, newest first. */
  readonly runs: (last: number) => Effect.Effect<ReadonlyArray<RunRecord>, ImproveError>
  /** `akm proposal submit <packet-id>`: an agent's candidate files, verified exactly like a model's. */
  readonly submit: (packetId: string, dir?: string) => Effect.Effect<SubmitResult, ImproveError>
  /** The generator runs use: its id, and whether one is configured at all (R-GEN-3). */
  readonly generator: { readonly id: string; readonly available: boolean }
}>() {}
