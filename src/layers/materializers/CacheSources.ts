import * as fs from "node:fs"
import * as path from "node:path"
import { randomBytes } from "node:crypto"

/**
 * The cache layout every fetched source shares: $CACHE/sources/<bundle>/<revision>.
 * A revision directory is filled under a temporary name and renamed into place,
 * so a crash or a refused archive never leaves a half-written revision that
 * looks complete, and the previous revision stays untouched (R-BUN-2).
 */
export const bundleCacheDir = (sourcesDir: string, bundle: string): string => path.join(sourcesDir, bundle)

/** A directory name for a revision: safe characters only, whatever the revision string is. */
export const revisionDirName = (revision: string): string => revision.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_").slice(0, 120)

/** A fresh staging directory next to the revisions; removed by `discardStaging` on failure. */
export const makeStagingDir = (sourcesDir: string, bundle: string): string => {
  const dir = path.join(bundleCacheDir(sourcesDir, bundle), `.staging-${process.pid}-${randomBytes(4).toString("hex")}`)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}

/** Removes a staging directory, and the bundle's cache folder when that leaves it empty (a failed first install leaves nothing). */
export const discardStaging = (staging: string): void => {
  fs.rmSync(staging, { recursive: true, force: true })
  const bundleDir = path.dirname(staging)
  try {
    if (fs.readdirSync(bundleDir).length === 0) fs.rmdirSync(bundleDir)
  } catch {
    // Gone already, or filled meanwhile by another revision: either way nothing empty is left.
  }
}

/**
 * Moves a filled staging directory to <bundle>/<revision> and returns that path.
 * When the revision is already there (same commit, same tarball) the existing
 * copy wins and the staging directory is dropped.
 */
export const commitStaging = (sourcesDir: string, bundle: string, revision: string, staging: string): string => {
  const target = path.join(bundleCacheDir(sourcesDir, bundle), revisionDirName(revision))
  if (fs.existsSync(target)) {
    discardStaging(staging)
    return target
  }
  fs.renameSync(staging, target)
  return target
}

/** The existing cache directory of a revision, if it is complete. */
export const existingRevision = (sourcesDir: string, bundle: string, revision: string): string | undefined => {
  const target = path.join(bundleCacheDir(sourcesDir, bundle), revisionDirName(revision))
  return fs.existsSync(target) ? target : undefined
}

/** Deletes every cache copy of a bundle — only ever below sourcesDir. */
export const discardCache = (sourcesDir: string, bundle: string): void => {
  const dir = bundleCacheDir(sourcesDir, bundle)
  if (path.dirname(dir) !== path.resolve(sourcesDir)) return
  fs.rmSync(dir, { recursive: true, force: true })
}

/** Deletes the bundle's cache entries other than `keepRoot` (and any other entry a layer names to keep, e.g. a gitdir). */
export const pruneCache = (sourcesDir: string, bundle: string, keepRoot: string, keepNames: ReadonlyArray<string> = []): void => {
  const dir = bundleCacheDir(sourcesDir, bundle)
  if (!fs.existsSync(dir)) return
  const keep = path.resolve(keepRoot)
  for (const entry of fs.readdirSync(dir)) {
    const full = path.join(dir, entry)
    if (full === keep || keep.startsWith(full + path.sep) || keepNames.includes(entry)) continue
    fs.rmSync(full, { recursive: true, force: true })
  }
}

/** Renames <sourcesDir>/<from> to <sourcesDir>/<to>; returns `root` rebased onto the new directory. */
export const renameCache = (sourcesDir: string, from: string, to: string, root: string): string => {
  const fromDir = bundleCacheDir(sourcesDir, from)
  const toDir = bundleCacheDir(sourcesDir, to)
  const resolved = path.resolve(root)
  const rebased = resolved === fromDir || resolved.startsWith(fromDir + path.sep) ? toDir + resolved.slice(fromDir.length) : root
  // Already moved by an interrupted rename: repeating it finds the copy under the new name.
  if (!fs.existsSync(fromDir)) return fs.existsSync(rebased) ? rebased : root
  fs.mkdirSync(path.dirname(toDir), { recursive: true })
  fs.renameSync(fromDir, toDir)
  return rebased
}
