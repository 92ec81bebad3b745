import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { FileChange } from "../../domain/FileChange.js"
import { Transaction, TransactionRefused } from "../../services/Transaction.js"
import { atomicWriteFileSync, fsyncDirectory } from "./atomicWrite.js"

/**
 * A direct stand-in for the transaction engine: verify every before-hash and
 * containment first (refusing the whole set on any problem), then write each
 * file atomically (temp file, fsync, rename) and delete last.
 *
 * It has no lease, journal, backups or recovery, so a crash between two files
 * can leave a set half applied. The crash-safe engine of spec 05 §2 replaces
 * this layer in the proposals issue; callers only see the Transaction service.
 */

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

const refused = (file: string, reason: string, hint: string) => new TransactionRefused({ path: file, reason, hint })

const inside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

const lstatOrUndefined = (file: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}

/** The absolute target of a change, or why it may not be written (R-TX-3: contained, no symlink on the way). */
const targetOf = (realRoot: string, change: FileChange): string | TransactionRefused => {
  const relative = change.path
  const segments = relative.split("/")
  if (relative === "" || relative.includes("\0") || relative.includes("\\") || path.isAbsolute(relative) || segments.some((s) => s === "" || s === "." || s === "..")) {
    return refused(relative, "not a bundle-relative path", "paths are bundle-relative, POSIX, without '.' or '..' segments")
  }
  let current = realRoot
  for (const [i, segment] of segments.entries()) {
    current = path.join(current, segment)
    const stat = lstatOrUndefined(current)
    if (stat === undefined) break
    if (stat.isSymbolicLink()) return refused(relative, `${segments.slice(0, i + 1).join("/")} is a symbolic link`, "akm never writes through symbolic links")
    if (i < segments.length - 1 && !stat.isDirectory()) return refused(relative, `${segments.slice(0, i + 1).join("/")} is not a directory`, "move the file out of the way first")
    if (i === segments.length - 1 && !stat.isFile()) return refused(relative, "the target is not a regular file", "akm only writes regular files")
  }
  // The nearest existing ancestor must resolve inside the root.
  let parent = path.dirname(path.join(realRoot, relative))
  while (lstatOrUndefined(parent) === undefined) parent = path.dirname(parent)
  if (!inside(fs.realpathSync(parent), realRoot)) return refused(relative, "the path resolves outside the bundle root", "akm only writes inside the bundle root")
  return path.join(realRoot, relative)
}

const verify = (target: string, change: FileChange): TransactionRefused | undefined => {
  if ((change.after === undefined) === (change.delete !== true)) {
    return refused(change.path, "a change needs either new bytes or delete, not both or neither", "this is a bug in the code that built the change")
  }
  const exists = lstatOrUndefined(target) !== undefined
  if (change.beforeHash === null) {
    return exists ? refused(change.path, "the file already exists", "the change was made for a file that did not exist yet; regenerate it") : undefined
  }
  if (!exists) return refused(change.path, "the file no longer exists", "the file changed since the change was made; regenerate it")
  return sha256(fs.readFileSync(target)) === change.beforeHash
    ? undefined
    : refused(change.path, "the file changed since the change was made (before-hash mismatch)", "rerun the command to regenerate the change from the current file")
}

const applyAll = (changes: ReadonlyArray<FileChange>, root: string): { applied: number } | TransactionRefused => {
  const realRoot = fs.realpathSync(root)
  const seen = new Set<string>()
  const targets: Array<{ change: FileChange; target: string }> = []
  for (const change of changes) {
    if (seen.has(change.path)) return refused(change.path, "the change set touches this path twice", "merge the changes to one path into one")
    seen.add(change.path)
    const target = targetOf(realRoot, change)
    if (target instanceof TransactionRefused) return target
    const problem = verify(target, change)
    if (problem !== undefined) return problem
    targets.push({ change, target })
  }
  for (const { change, target } of targets) {
    if (change.after === undefined) continue
    const mode = change.mode ?? lstatOrUndefined(target)?.mode ?? 0o644
    atomicWriteFileSync(target, change.after, mode & 0o7777)
  }
  for (const { change, target } of targets) {
    if (change.delete !== true) continue
    fs.rmSync(target)
    fsyncDirectory(path.dirname(target))
  }
  return { applied: targets.length }
}

export const TransactionDirect = Layer.succeed(
  Transaction,
  Transaction.of({
    apply: (changes, options) =>
      Effect.try({
        try: () => applyAll(changes, options.root),
        catch: (cause) => refused(options.root, `writing failed: ${cause instanceof Error ? cause.message : String(cause)}`, "check permissions and free space, then rerun")
      }).pipe(Effect.flatMap((result) => (result instanceof TransactionRefused ? Effect.fail(result) : Effect.succeed(result))))
  })
)
