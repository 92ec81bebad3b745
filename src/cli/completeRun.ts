import { Effect } from "effect"
import type { PathOverrides } from "../domain/Paths.js"
import { openCompletionLive } from "../layers/CompletionLive.js"
import { completionValues } from "../programs/complete.js"
import type { CommandNode } from "./commandTree.js"
import { planCompletion, type CompletionLookup } from "./complete.js"

/** Bundle names or refs from the workspace's index (layers/CompletionLive.ts); none without one. */
const lookUp = async (lookup: CompletionLookup, overrides: PathOverrides): Promise<ReadonlyArray<string>> => {
  const live = openCompletionLive(overrides)
  if (live === undefined) return []
  try {
    const values = await Effect.runPromise(completionValues(lookup.kind, lookup.partial).pipe(Effect.provide(live.layer)))
    return values.map((value) => `${lookup.insert}${value}`)
  } finally {
    live.close()
  }
}

/**
 * `akm __complete <words…>`: prints the candidates for the last word, one a
 * line, and always exits 0 — a shell asking for completions wants candidates
 * or silence, never an error. bin/akm.js runs it from a small bundle of its
 * own (dist/cli/complete.cjs, like the search fast path,
 * docs/decisions/0002-start-up.md) on the command tree scripts/build.mjs
 * wrote from the descriptors (dist/cli/command-tree.json); the full CLI
 * (main.ts) answers the same from the descriptors themselves.
 */
export const runComplete = async (tree: CommandNode, words: ReadonlyArray<string>): Promise<number> => {
  try {
    const plan = planCompletion(tree, words)
    const found = plan.lookup === undefined ? [] : await lookUp(plan.lookup, plan.overrides)
    const candidates = [...plan.candidates, ...found]
    if (candidates.length > 0) process.stdout.write(`${candidates.join("\n")}\n`)
  } catch {
    // Nothing to offer.
  }
  return 0
}
