import * as fs from "node:fs"
import * as path from "node:path"
import { getBlob } from "./BlobStore.js"
import { removeEmptyDirs, removeFile, replaceFile } from "./FileOps.js"
import type { Journal, JournalTarget } from "./Journal.js"
import { currentHash, locate, pathProblem } from "./Target.js"

/**
 * Rolling an unfinished journal back or forward (R-TX-5). Before touching
 * anything the journal must point inside the roots its bundles have now —
 * a journal naming another root, an unsafe path or a path through a symbolic
 * link is refused whole. Rollback touches only bytes the engine can prove it
 * wrote: a target at its after-hash is restored from its backup (or removed
 * when the set created it), a target at its before-hash is left, and any
 * other content is someone else's and is left and reported.
 */

export interface LocatedTarget {
  readonly target: JournalTarget
  readonly absolute: string
  readonly temp: string
}

export interface LocatedJournal {
  readonly targets: ReadonlyArray<LocatedTarget>
  /** Absolute directories the set creates, parents first. */
  readonly createdDirs: ReadonlyArray<string>
}

/** The temp name of the i-th target of a transaction, beside its target. */
export const tempName = (relative: string, idDigest: string, index: number): string => {
  const dir = path.posix.dirname(relative)
  const name = `.akm-tx-${idDigest}-${index}.tmp`
  return dir === "." ? name : `${dir}/${name}`
}

const TEMP = /^\.akm-tx-[0-9a-f]{12}-\d+\.tmp$/

/** Where a journal's files are under the given current roots, or why the journal may not be acted on. */
export const locateJournal = (journal: Journal, roots: ReadonlyMap<string, string>): LocatedJournal | string => {
  for (const [bundle, recorded] of Object.entries(journal.bundles)) {
    const current = roots.get(bundle)
    if (current === undefined) return `bundle '${bundle}' is no longer configured`
    if (current !== recorded.root) return `the journal names ${recorded.root} as the root of '${bundle}', which is now ${current}`
  }
  const rootOf = (bundle: string): string | undefined => journal.bundles[bundle]?.root
  const targets: Array<LocatedTarget> = []
  for (const target of journal.targets) {
    const root = rootOf(target.bundle)
    if (root === undefined) return `${target.path}: bundle '${target.bundle}' is not in the journal`
    const located = locate(root, target.path)
    if (typeof located === "string") return `${target.bundle}//${target.path}: ${located}`
    const tempProblem = pathProblem(target.temp)
    if (tempProblem !== undefined || path.posix.dirname(target.temp) !== path.posix.dirname(target.path) || !TEMP.test(path.posix.basename(target.temp))) {
      return `${target.bundle}//${target.temp}: not a temp file name the engine uses`
    }
    targets.push({ target, absolute: located.absolute, temp: path.join(root, target.temp) })
  }
  const createdDirs: Array<string> = []
  for (const dir of journal.createdDirs) {
    const root = rootOf(dir.bundle)
    const located = root === undefined ? "unknown bundle" : locate(root, dir.path, "directory")
    if (typeof located === "string") return `${dir.bundle}//${dir.path}: ${located}`
    createdDirs.push(located.absolute)
  }
  return { targets, createdDirs }
}

/** Removes the engine's own temp files of a journal (a write interrupted before its rename). */
export const removeTemps = (located: LocatedJournal): void => {
  for (const { temp } of located.targets) {
    try {
      if (fs.lstatSync(temp).isFile()) removeFile(temp)
    } catch {
      // Not there: the usual case.
    }
  }
}

/** Restores the pre-state; returns the problems that kept a target from it (empty = exact pre-state). */
export const rollBack = (located: LocatedJournal, archiveDir: string): ReadonlyArray<string> => {
  removeTemps(located)
  const problems: Array<string> = []
  for (const { target, absolute, temp } of located.targets) {
    const current = currentHash(absolute)
    const name = `${target.bundle}//${target.path}`
    if (current === target.beforeHash) continue
    if (current !== target.afterHash) {
      problems.push(`${name} changed since the interrupted transaction; left as it is`)
      continue
    }
    if (target.beforeHash === null) {
      removeFile(absolute)
      continue
    }
    const bytes = getBlob(archiveDir, target.backup ?? target.beforeHash)
    if (bytes === undefined) {
      problems.push(`${name}: the backup of its previous bytes is missing from the archive; left as it is`)
      continue
    }
    fs.mkdirSync(path.dirname(absolute), { recursive: true })
    replaceFile(temp, absolute, bytes, target.beforeMode ?? 0o644)
  }
  removeEmptyDirs(located.createdDirs)
  return problems
}

/** Targets of a journal whose bytes are final (at their after-hash); the others were changed since. */
export const finalTargets = (located: LocatedJournal): ReadonlyArray<LocatedTarget> =>
  located.targets.filter(({ target, absolute }) => currentHash(absolute) === target.afterHash)
