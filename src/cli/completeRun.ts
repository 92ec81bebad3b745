import { existsSync } from "node:fs"
import { Effect } from "effect"
import { resolveWorkspacePaths } from "../layers/fs/WorkspaceConfigFile.js"
import { betterSqliteAddon } from "../layers/sqlite/addon.js"
import { openIndexStoreConnection } from "../layers/sqlite/IndexStoreConnection.js"
import { completionValues } from "../programs/complete.js"
import { IndexStore } from "../services/IndexStore.js"
import type { CommandNode } from "./commandTree.js"
import { planCompletion, type CompletionLookup } from "./complete.js"
import type { PathOverrides } from "../domain/Paths.js"

/**
 * Bundle names or refs from the workspace's index.db, on a plain connection
 * (sqlite/IndexStoreConnection.ts) that only reads: no other service, no
 * config read, no migration. A workspace without an index (or with one this
 * akm cannot read) offers nothing, and nothing is ever created or written.
 * Not opened `readonly`: a read-only connection cannot remove the -wal and
 * -shm files SQLite makes on opening, and would leave them behind.
 */
const lookUp = async (lookup: CompletionLookup, overrides: PathOverrides): Promise<ReadonlyArray<string>> => {
  const paths = resolveWorkspacePaths(overrides)
  if (!existsSync(paths.indexDb)) return []
  const addon = betterSqliteAddon()
  let index: ReturnType<typeof openIndexStoreConnection> | undefined
  try {
    index = openIndexStoreConnection(paths.indexDb, { database: addon === undefined ? {} : { nativeBinding: addon } })
    const values = await Effect.runPromise(completionValues(lookup.kind, lookup.partial).pipe(Effect.provideService(IndexStore, index.store)))
    return values.map((value) => `${lookup.insert}${value}`)
  } catch {
    return []
  } finally {
    index?.close()
  }
}

/**
 * `akm __complete <words…>`: prints the candidates for the last word, one a
 * line, and always exits 0 — a shell asking for completions wants candidates
 * or silence, never an error.
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
