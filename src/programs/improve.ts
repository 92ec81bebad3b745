import { randomUUID } from "node:crypto"
import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import type { RunRecord } from "../domain/Improve.js"
import { Improve, type ImproveInput, type ImproveResult } from "../services/Improve.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { collectEvidenceReport } from "./evidence/collect.js"

/**
 * A dry run in a workspace without state.db: there is no evidence, so nothing
 * to plan, and opening the stores would create the file (R-IMP-6: a dry run
 * writes nothing anywhere).
 */
const emptyDryRun = (input: ImproveInput) =>
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    if (yield* Effect.orElseSucceed((yield* FileSystem).exists(workspace.paths.stateDb), () => true)) return undefined
    const config = yield* Effect.orElseSucceed(workspace.read, () => undefined)
    const kind = (config?.improve as { readonly generator?: { readonly kind?: unknown } } | undefined)?.generator?.kind
    const at = new Date().toISOString()
    const run: RunRecord = {
      id: randomUUID(), startedAt: at, finishedAt: at, durationMs: 0, dryRun: true, options: { ...input },
      generator: typeof kind === "string" ? kind : "none", targets: [], modelCalls: 0, cachedCalls: 0, inputTokens: 0, outputTokens: 0,
      proposals: [], autoApplied: [], status: "nothing-to-do"
    }
    return { _tag: "Ran", run } satisfies ImproveResult
  })

/**
 * `akm improve` (spec 06 §4): the automatic evidence sources (feedback, lint,
 * broken links, ledger recurrences, failed searches) are collected first, then
 * one run through the Improve service; its layer decides the generator. A dry
 * run stores nothing (R-IMP-6): it plans from the rows already stored.
 */
export const improve = Effect.fn("improve")(function* (input: ImproveInput) {
  if (input.dryRun === true) {
    const empty = yield* emptyDryRun(input)
    if (empty !== undefined) return empty
  } else yield* collectEvidenceReport(input.ref !== undefined && input.ref.includes("//") ? { ref: input.ref } : {})
  return yield* (yield* Improve).run(input)
})

/** `akm improve runs`: the last run records, newest first (R-IMP-7). */
export const improveRuns = Effect.fn("improve.runs")(function* (last: number) {
  return yield* (yield* Improve).runs(last)
})

/** `akm proposal submit <packet-id>`: an agent's candidate, verified like a model's. */
export const proposalSubmit = Effect.fn("proposal.submit")(function* (packetId: string, dir?: string) {
  return yield* (yield* Improve).submit(packetId, dir)
})
