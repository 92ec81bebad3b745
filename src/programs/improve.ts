import { Effect } from "effect"
import { Improve, type ImproveInput } from "../services/Improve.js"
import { collectEvidenceReport } from "./evidence/collect.js"

/**
 * `akm improve` (spec 06 §4): the automatic evidence sources (feedback, lint,
 * broken links, ledger recurrences, failed searches) are collected first, then
 * one run through the Improve service; its layer decides the generator. A dry
 * run stores nothing (R-IMP-6): it plans from the rows already stored.
 */
export const improve = Effect.fn("improve")(function* (input: ImproveInput) {
  if (input.dryRun !== true) yield* collectEvidenceReport(input.ref !== undefined && input.ref.includes("//") ? { ref: input.ref } : {})
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
