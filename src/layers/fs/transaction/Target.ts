import * as fs from "node:fs"
import * as path from "node:path"
import { sha256Hex as sha256 } from "../../../domain/Digest.js"

/** Transaction ids name directories under $DATA/txn/, so they are plain names. */
export const idProblem = (id: string): string | undefined =>
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id) ? undefined : "a transaction id is 1–128 letters, digits, '.', '_' or '-', starting with a letter or digit"

export { sha256 }

export const isHash = (value: string): boolean => /^[0-9a-f]{64}$/.test(value)

/** Why a string is not a bundle-relative POSIX path without '.' or '..' segments, or undefined. */
export const pathProblem = (relative: string): string | undefined => {
  if (relative === "" || relative.includes("\0") || relative.includes("\\") || path.posix.isAbsolute(relative) || /^[A-Za-z]:/.test(relative)) {
    return "not a bundle-relative path"
  }
  if (relative.split("/").some((s) => s === "" || s === "." || s === "..")) return "not a bundle-relative path ('.', '..' or empty segments)"
  return undefined
}

export const lstatOrUndefined = (file: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return undefined
    throw error
  }
}

/** Version-control metadata directories: no change set may touch anything under them. */
const VCS_DIRS = new Set([".git", ".hg", ".svn"])

/** Why a bundle-relative path lies in version-control metadata (compared case-insensitively), or undefined. */
export const vcsProblem = (relative: string): string | undefined => {
  const found = relative.split("/").find((s) => VCS_DIRS.has(s.toLowerCase()))
  return found === undefined ? undefined : `${found}/ holds version-control metadata; akm never writes there`
}

/** The workspace's own directories, as real paths (see `workspaceStateProblem`). */
export interface WorkspaceDirs {
  readonly configDir?: string | undefined
  readonly dataDir?: string | undefined
  readonly cacheDir?: string | undefined
}

/** Entries of $AKM_DATA_DIR that are akm's own state (everything but bundles/ and what users keep there). */
const DATA_STATE = /^(state\.db|logs\.db|akm\.lock|txn|locks|archive|packets)(?:$|[-.])/

/** The realpath of a path through its nearest existing ancestor (workspace dirs may not exist yet). */
export const canonical = (p: string): string => {
  const parts = path.resolve(p).split(path.sep)
  for (let cut = parts.length; cut > 0; cut--) {
    const head = parts.slice(0, cut).join(path.sep) || path.sep
    try {
      return path.join(fs.realpathSync(head), ...parts.slice(cut))
    } catch {
      // Not there yet: try its parent.
    }
  }
  return p
}

/**
 * Why an absolute target is workspace state no change set may touch: anything
 * under the config or cache dir, and the data dir's own state (state.db,
 * logs.db, akm.lock, txn/, locks/, archive/, packets/). Bundles under
 * $AKM_DATA_DIR/bundles/ are fine.
 */
export const workspaceStateProblem = (dirs: WorkspaceDirs, absolute: string): string | undefined => {
  if (dirs.dataDir !== undefined) {
    if (inside(absolute, path.join(dirs.dataDir, "bundles")) && absolute !== path.join(dirs.dataDir, "bundles")) return undefined
    const rel = path.relative(dirs.dataDir, absolute)
    if (inside(absolute, dirs.dataDir) && DATA_STATE.test(rel.split(path.sep)[0] ?? "")) return "the path is akm's own state in the data directory; akm never changes it through a proposal"
  }
  if (dirs.configDir !== undefined && inside(absolute, dirs.configDir)) return "the path is inside akm's config directory; akm never changes it through a proposal"
  if (dirs.cacheDir !== undefined && inside(absolute, dirs.cacheDir)) return "the path is inside akm's cache directory; akm never changes it through a proposal"
  return undefined
}

const inside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

export interface Located {
  readonly absolute: string
  /** The current file's stats, when it exists. */
  readonly stat: fs.Stats | undefined
  /** Bundle-relative directories on the way that do not exist yet, parents first. */
  readonly missingDirs: ReadonlyArray<string>
}

/**
 * R-TX-3: where a bundle-relative path lives under a real root, or why it may
 * not be written — every existing component is lstat'ed (no symbolic link
 * anywhere on the way, directories above, a regular file or nothing at the
 * end — or a directory, for `kind` "directory") and the deepest existing
 * directory must resolve inside the root.
 */
export const locate = (realRoot: string, relative: string, kind: "file" | "directory" = "file"): Located | string => {
  const problem = pathProblem(relative) ?? vcsProblem(relative)
  if (problem !== undefined) return problem
  const segments = relative.split("/")
  let current = realRoot
  let stat: fs.Stats | undefined
  const missingDirs: Array<string> = []
  for (const [i, segment] of segments.entries()) {
    current = path.join(current, segment)
    const last = i === segments.length - 1
    const found = missingDirs.length > 0 ? undefined : lstatOrUndefined(current)
    if (found === undefined) {
      if (!last) missingDirs.push(segments.slice(0, i + 1).join("/"))
      continue
    }
    const shown = segments.slice(0, i + 1).join("/")
    if (found.isSymbolicLink()) return `${shown} is a symbolic link; akm never writes through symbolic links`
    if (!last && !found.isDirectory()) return `${shown} is not a directory`
    if (last && kind === "file" && !found.isFile()) return "the target is not a regular file"
    if (last && kind === "directory" && !found.isDirectory()) return "not a directory"
    if (last) stat = found
  }
  const deepest = path.join(realRoot, ...segments.slice(0, segments.length - 1 - missingDirs.length))
  if (!inside(fs.realpathSync(deepest), realRoot)) return "the path resolves outside the bundle root"
  return { absolute: path.join(realRoot, relative), stat, missingDirs }
}

/** The bytes at an absolute path, or undefined when nothing is there. */
export const readIfExists = (file: string): Uint8Array | undefined => {
  try {
    return fs.readFileSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}

/** sha256 of the file at an absolute path, or null when nothing is there. */
export const currentHash = (file: string): string | null => {
  const bytes = readIfExists(file)
  return bytes === undefined ? null : sha256(bytes)
}
