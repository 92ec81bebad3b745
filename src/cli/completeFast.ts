import { readFileSync } from "node:fs"
import type { CommandNode } from "./commandTree.js"
import { runComplete } from "./completeRun.js"

/**
 * `akm __complete` without @effect/cli or the command modules: bin/akm.js
 * runs it from a small bundle of its own (dist/cli/complete.cjs, built like
 * the search fast path, docs/decisions/0002-start-up.md), on the command tree
 * scripts/build.mjs wrote beside it from the same descriptors
 * (dist/cli/command-tree.json). Without that file it resolves to undefined
 * and bin/akm.js runs the full CLI, which answers the same from its own tree.
 */
export const runCompleteFromFile = async (words: ReadonlyArray<string>, treeFile: string): Promise<number | undefined> => {
  let tree: CommandNode
  try {
    tree = JSON.parse(readFileSync(treeFile, "utf8")) as CommandNode
  } catch {
    return undefined
  }
  return runComplete(tree, words)
}
