import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import type { PromiseFsClient } from "isomorphic-git"
import { GitSourceProblem } from "./GitSourceProblem.js"

const refuseWrite = async (): Promise<never> => {
  throw Object.assign(new Error("akm never writes to a source repository"), { code: "EROFS" })
}

/**
 * The file system isomorphic-git reads a user's repository through: every
 * write method fails, so no code path (a cache file, a ref update, an index
 * refresh) can change the user's repository, whatever the library decides to do.
 */
export const readOnlyFs: PromiseFsClient = {
  promises: {
    readFile: fsp.readFile,
    stat: fsp.stat,
    lstat: fsp.lstat,
    readdir: fsp.readdir,
    readlink: fsp.readlink,
    writeFile: refuseWrite,
    mkdir: refuseWrite,
    rmdir: refuseWrite,
    unlink: refuseWrite,
    symlink: refuseWrite,
    chmod: refuseWrite
  }
}

/** A local repository as isomorphic-git needs it: the git directory, and a worktree's own HEAD when it has one. */
export interface LocalRepository {
  readonly gitdir: string
  /** A linked worktree keeps HEAD apart from the shared objects and refs: "refs/heads/x" or a sha. */
  readonly head?: string | undefined
}

const isFile = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true
const isDir = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true
const looksLikeGitdir = (dir: string) => isFile(path.join(dir, "HEAD")) && isDir(path.join(dir, "objects")) && isDir(path.join(dir, "refs"))

/**
 * Finds the git directory of a checkout (its .git folder, or the folder a
 * `.git` file points to for worktrees and submodules) or of a bare repository.
 * Reads only; isomorphic-git has no file transport, so the objects are read
 * from here directly (spec 00 §4.2).
 */
export const openLocalRepository = (dir: string): LocalRepository => {
  const stat = fs.statSync(dir, { throwIfNoEntry: false })
  if (stat === undefined) throw new GitSourceProblem(`the folder ${dir} does not exist`, "check the path (relative paths in config.yaml are resolved from its folder)")
  if (!stat.isDirectory()) throw new GitSourceProblem(`${dir} is not a folder`, "give the folder of a git repository")
  const dotGit = path.join(dir, ".git")
  if (isDir(dotGit) && looksLikeGitdir(dotGit)) return { gitdir: dotGit }
  if (isFile(dotGit)) return linkedGitdir(dir, fs.readFileSync(dotGit, "utf8"))
  if (looksLikeGitdir(dir)) return { gitdir: dir }
  throw new GitSourceProblem(
    `${dir} is not a git repository`,
    "add the folder without --git to use it in place, or `git init` and commit in it first"
  )
}

/** A `.git` file ("gitdir: <path>"): a submodule's git directory, or a linked worktree's, whose objects live in its `commondir`. */
const linkedGitdir = (dir: string, text: string): LocalRepository => {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text)
  const target = match?.[1] === undefined ? undefined : path.resolve(dir, match[1])
  if (target === undefined || !isDir(target)) {
    throw new GitSourceProblem(`${path.join(dir, ".git")} points to no git directory`, "repair the checkout (`git worktree repair`) or give the main repository's folder")
  }
  const commondir = path.join(target, "commondir")
  if (!isFile(commondir)) return { gitdir: target }
  const head = fs.readFileSync(path.join(target, "HEAD"), "utf8").trim()
  return { gitdir: path.resolve(target, fs.readFileSync(commondir, "utf8").trim()), head: head.startsWith("ref:") ? head.slice(4).trim() : head }
}
