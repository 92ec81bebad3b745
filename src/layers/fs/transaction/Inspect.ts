import { Effect } from "effect"
import { WorkspaceUnavailable } from "../../../domain/Errors.js"
import type { WorkspacePaths } from "../../../domain/Paths.js"
import type { DamagedTransaction } from "../../../services/Transaction.js"
import { listFinished, listTransactions, readJournal, readRetireRecord, type Journal } from "./Journal.js"
import { locateJournal, type LocatedJournal } from "./Recovery.js"
import { canonical, idProblem, workspaceStateProblem, type WorkspaceDirs } from "./Target.js"

/**
 * The read-only journal check (`Transaction.inspect`, `akm health`): what
 * recovery would refuse to act on. It lives outside the engine so that health
 * can run it without building the engine's layer (adapters, validator,
 * bundle files); the engine's inspect and recovery use the same pieces.
 */

export const unavailable = (where: string, cause: unknown) =>
  new WorkspaceUnavailable({ path: where, reason: cause instanceof Error ? cause.message : String(cause), hint: "check permissions and free space, then rerun; recovery resolves what was interrupted" })

export const io = <A>(where: string, f: () => A) => Effect.try({ try: f, catch: (cause) => unavailable(where, cause) })

/** The workspace's own directories as real paths (bundle roots are real paths too). */
export const workspaceDirs = (paths: Partial<Pick<WorkspacePaths, "configDir" | "dataDir" | "cacheDir">>): WorkspaceDirs => ({
  configDir: paths.configDir === undefined ? undefined : canonical(paths.configDir),
  dataDir: paths.dataDir === undefined ? undefined : canonical(paths.dataDir),
  cacheDir: paths.cacheDir === undefined ? undefined : canonical(paths.cacheDir)
})

/** A journal's targets located under today's roots, or why recovery must not act on it (a root moved, a target in akm's own state). */
export const locateSafely = (dirs: WorkspaceDirs, journal: Journal, roots: ReadonlyMap<string, string>): LocatedJournal | string => {
  const located = locateJournal(journal, roots)
  if (typeof located === "string") return located
  for (const { target, absolute } of located.targets) {
    const problem = workspaceStateProblem(dirs, absolute)
    if (problem !== undefined) return `${target.bundle}//${target.path}: ${problem}`
  }
  return located
}

export const finishedId = (file: string): string => file.replace(/\.(apply|revert|retire)\.json$/, "")

/** Bundle names to their real roots today (names that no longer resolve are left out). */
export type CurrentRoots = (names: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, string>, WorkspaceUnavailable>

/** Damaged transactions, read-only: what recovery would refuse, and unreadable finished records. */
export const inspectJournals = (txnDir: string, dirs: WorkspaceDirs, currentRoots: CurrentRoots) =>
  Effect.gen(function* () {
    const damaged: Array<DamagedTransaction> = []
    for (const id of yield* io(txnDir, () => listTransactions(txnDir))) {
      const badId = idProblem(id)
      if (badId !== undefined) {
        damaged.push({ id, reason: `not a transaction directory: ${badId}` })
        continue
      }
      const journal = yield* io(txnDir, () => readJournal(txnDir, id))
      if (typeof journal === "string") damaged.push({ id, reason: journal })
      else if (journal !== undefined) {
        const located = locateSafely(dirs, journal, yield* currentRoots(Object.keys(journal.bundles)))
        if (typeof located === "string") damaged.push({ id, reason: `journal refused: ${located}` })
      }
      const retire = yield* io(txnDir, () => readRetireRecord(txnDir, id))
      if (typeof retire === "string") damaged.push({ id, reason: retire })
    }
    for (const record of yield* io(txnDir, () => listFinished(txnDir))) {
      if ("problem" in record) damaged.push({ id: finishedId(record.file), reason: `the record of a finished transaction is unreadable (${record.problem})` })
    }
    return damaged as ReadonlyArray<DamagedTransaction>
  })
