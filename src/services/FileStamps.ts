import { Context, type Effect } from "effect"

/**
 * The stats of every file under some paths of a root, as one key: a cheap
 * "did anything here change" for state derived from many files (the question
 * batch from 2,000 ledger records). Read-only; a missing path is part of the
 * key, never an error.
 */
export interface Stamp {
  /** sha256 over `salt` and each file's path, size, modification and change times (ns) and inode, sorted by path. */
  readonly key: string
  /** The newest modification or change time among the files, epoch ms (0 when there are none). */
  readonly newest: number
}

export class FileStamps extends Context.Tag("akm/FileStamps")<FileStamps, {
  /** The stamp of every file under `paths` (root-relative files or folders, walked; a symlink is stamped by its target, never walked into). */
  readonly stamp: (root: string, paths: ReadonlyArray<string>, salt: string) => Effect.Effect<Stamp>
}>() {}
