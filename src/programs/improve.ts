import { Effect } from "effect"
import { Improve, type ImproveInput } from "../services/Improve.js"

/** `akm improve` (spec 06 §4): one run through the Improve service; its layer decides the generator and evidence. */
export const improve = Effect.fn("improve")(function* (input: ImproveInput) {
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
