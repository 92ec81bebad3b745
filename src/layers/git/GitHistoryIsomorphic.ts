import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import * as git from "isomorphic-git"
import { GitHistory, GitHistoryUnreadable, type HistoryCommit, type WorkingChange } from "../../services/GitHistory.js"
import { GitSourceProblem } from "../materializers/git/GitSourceProblem.js"
import { openLocalRepository, readOnlyFs } from "../materializers/git/LocalRepository.js"

interface Repo {
  readonly fs: git.FsClient
  readonly gitdir: string
  readonly cache: object
}

/** Thrown inside the walk with words a user can act on; anything else is reported as damage. */
class Unreadable extends Error {
  constructor(readonly reason: string, readonly hint: string) {
    super(reason)
  }
}

const errorCode = (cause: unknown) => (cause as { code?: unknown } | null)?.code

const readTree = async (repo: Repo, oid: string | undefined): Promise<ReadonlyArray<git.TreeEntry>> =>
  oid === undefined ? [] : (await git.readTree({ ...repo, oid })).tree

/** Paths that differ between two trees; equal subtrees (same oid) are never opened, so a commit costs what it changed. */
const changedPaths = async (repo: Repo, before: string | undefined, after: string | undefined, prefix: string, into: Array<string>): Promise<void> => {
  if (before === after) return
  const [old, now] = await Promise.all([readTree(repo, before), readTree(repo, after)])
  const olds = new Map(old.map((entry) => [entry.path, entry]))
  const nows = new Map(now.map((entry) => [entry.path, entry]))
  for (const name of [...new Set([...olds.keys(), ...nows.keys()])].sort()) {
    const a = olds.get(name)
    const b = nows.get(name)
    if (a?.oid === b?.oid && a?.mode === b?.mode) continue
    const full = `${prefix}${name}`
    const treeA = a?.type === "tree" ? a.oid : undefined
    const treeB = b?.type === "tree" ? b.oid : undefined
    if (treeA !== undefined || treeB !== undefined) await changedPaths(repo, treeA, treeB, `${full}/`, into)
    if ((a !== undefined && a.type !== "tree") || (b !== undefined && b.type !== "tree")) into.push(full)
  }
}

const shallowCommits = (gitdir: string): ReadonlySet<string> => {
  const file = path.join(gitdir, "shallow")
  return fs.existsSync(file) ? new Set(fs.readFileSync(file, "utf8").split(/\s+/).filter((line) => line !== "")) : new Set()
}

const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10)

const walk = async (dir: string, since: number): Promise<{ root: string; commits: ReadonlyArray<HistoryCommit> }> => {
  const root = await git.findRoot({ fs: readOnlyFs, filepath: path.resolve(dir) }).catch(() => {
    throw new Unreadable("not inside a git work tree", "run it in the repository, or `git init` and commit first")
  })
  const local = openLocalRepository(root)
  const repo: Repo = { fs: readOnlyFs, gitdir: local.gitdir, cache: {} }
  const head = await git.resolveRef({ ...repo, ref: local.head ?? "HEAD" }).catch((cause: unknown) => {
    if (errorCode(cause) === "NotFoundError") return undefined
    throw cause
  })
  if (head === undefined) return { root, commits: [] }
  const shallow = shallowCommits(local.gitdir)
  const log = await git.log({ ...repo, ref: head, since: new Date(since) })
  const commits: Array<HistoryCommit> = []
  const seen = new Set<string>()
  for (const entry of log) {
    if (seen.has(entry.oid)) continue
    seen.add(entry.oid)
    const { commit } = entry
    if (shallow.has(entry.oid) && commit.parent.length > 0) {
      throw new Unreadable(
        `the history is shallow: it ends at commit ${entry.oid.slice(0, 12)} (${day(commit.committer.timestamp)}), inside the period asked for`,
        `fetch more history (\`git fetch --unshallow\`, or \`git fetch --shallow-since=${day(since / 1000)}\`), or give a shorter --since`
      )
    }
    const paths: Array<string> = []
    if (commit.parent.length <= 1) {
      const parentTree = commit.parent[0] === undefined ? undefined : (await git.readCommit({ ...repo, oid: commit.parent[0] })).commit.tree
      await changedPaths(repo, parentTree, commit.tree, "", paths)
    }
    commits.push({ sha: entry.oid, time: commit.committer.timestamp * 1000, message: commit.message, parents: commit.parent.length, paths })
  }
  return { root, commits }
}

/**
 * isomorphic-git's cache of parsed index files, shared by this layer's reads:
 * the scope plan lists the tracked files and then walks the working tree, and
 * a 3,000-entry index costs a parse and a checksum each time. Safe to share:
 * an index is re-read whenever its file's stats change.
 */
const indexCache = {}

/** The index's paths: what `git ls-files` lists (an empty list before the first `git add`). */
const tracked = async (dir: string): Promise<{ root: string; files: ReadonlyArray<string> }> => {
  const root = await git.findRoot({ fs: readOnlyFs, filepath: path.resolve(dir) }).catch(() => {
    throw new Unreadable("not inside a git work tree", "run it in the repository, or `git init` and commit first")
  })
  const local = openLocalRepository(root)
  const files = await git.listFiles({ fs: readOnlyFs, dir: root, gitdir: local.gitdir, cache: indexCache })
  return { root, files: [...files].sort() }
}

/**
 * statusMatrix refreshes the index's stat cache when it can: a speed-up for
 * the next run, not a change. The write is dropped; every other write is
 * refused as everywhere else in this layer.
 */
const statusFs = (gitdir: string): git.PromiseFsClient => ({
  promises: {
    ...readOnlyFs.promises,
    writeFile: async (file: string, data: unknown, options?: unknown) => (path.resolve(String(file)) === path.resolve(gitdir, "index") ? undefined : readOnlyFs.promises.writeFile(file, data, options))
  }
})

type Row = [string, 0 | 1, 0 | 1 | 2, 0 | 1 | 2 | 3]

/**
 * The index entry still describes the file: size, inode and times to the
 * millisecond. isomorphic-git also compares nanoseconds, which node's
 * millisecond stats cannot reproduce, so without its index refresh (a write,
 * dropped here) every file would be read and hashed on every run. A file git
 * wrote in the same instant as the index has size 0 there (git's racy-entry
 * smudge) and is hashed.
 */
const sameStats = (index: git.Stat, file: git.Stat): boolean => {
  const ms = (seconds: number, nanos: number) => seconds * 1000 + Math.floor(nanos / 1e6)
  return index.size === file.size
    && ms(index.mtimeSeconds, index.mtimeNanoseconds) === ms(file.mtimeSeconds, file.mtimeNanoseconds)
    && ms(index.ctimeSeconds, index.ctimeNanoseconds) === ms(file.ctimeSeconds, file.ctimeNanoseconds)
    && (index.ino === 0 || index.ino % 2 ** 32 === file.ino % 2 ** 32)
}

/**
 * statusMatrix's rows [path, head, workdir, stage] against HEAD (0 absent, 1
 * as in HEAD, 2 different; stage 3: staged then edited again) for the paths
 * HEAD or the index holds, from one walk of the three trees. Unlike
 * statusMatrix asked for a list of paths (a check of every path against the
 * whole list: quadratic), a folder neither tree holds is pruned at once: the
 * untracked files come from the walk below.
 */
const trackedRows = async (repo: { fs: git.PromiseFsClient; dir: string; gitdir: string; cache: object }, head: string, skip: (path: string) => boolean): Promise<{ rows: ReadonlyArray<Row>; known: ReadonlyArray<string> }> => {
  const known: Array<string> = []
  const rows = await git.walk({
    ...repo,
    trees: [git.TREE({ ref: head }), git.WORKDIR(), git.STAGE()],
    map: async (filepath, [h, w, st]): Promise<Row | undefined | null> => {
      if (filepath === ".") return undefined
      if ((h === null && st === null) || skip(filepath)) return null
      const [ht, wt, stt] = await Promise.all([h?.type(), w?.type(), st?.type()])
      if (ht === "commit" || stt === "commit") return null
      if (![ht, wt, stt].includes("blob")) return undefined
      if (ht === "blob" || stt === "blob") known.push(filepath)
      const headOid = ht === "blob" ? await h!.oid() : undefined
      const stageOid = stt === "blob" ? await st!.oid() : undefined
      // As statusMatrix: a file only in the work tree needs no hash; one whose stats match its index entry is as staged.
      const workdirOid = wt !== "blob" ? undefined
        : ht !== "blob" && stt !== "blob" ? "42"
        : stt === "blob" && sameStats(await st!.stat(), await w!.stat()) ? stageOid
        : await w!.oid()
      const headCol = headOid === undefined ? 0 : 1
      const workCol = workdirOid === undefined ? 0 : workdirOid === headOid ? 1 : 2
      const stageCol = stageOid === undefined ? 0 : stageOid === headOid ? 1 : stageOid === workdirOid ? 2 : 3
      return [filepath, headCol, workCol, stageCol] as Row
    }
  }) as ReadonlyArray<Row> | undefined
  // The default reduce flattens each folder's rows into its parent's list.
  return { rows: rows ?? [], known: known.sort() }
}

/**
 * The working tree against HEAD: tracked paths from one walk of HEAD, the
 * work tree and the index; untracked files from a walk that prunes ignored
 * folders (`skip`, then .gitignore) before it reads them, so a 50,000-file
 * untracked folder that is ignored costs one check.
 */
const working = async (dir: string, skip: (path: string) => boolean): Promise<{ root: string; changes: ReadonlyArray<WorkingChange>; head?: string }> => {
  const root = await git.findRoot({ fs: readOnlyFs, filepath: path.resolve(dir) }).catch(() => {
    throw new Unreadable("not inside a git work tree", "run it in the repository, or `git init` and commit first")
  })
  const local = openLocalRepository(root)
  const cache = indexCache
  const head = await git.resolveRef({ fs: readOnlyFs, gitdir: local.gitdir, ref: local.head ?? "HEAD" }).catch(() => undefined)
  const staged = await git.listFiles({ fs: readOnlyFs, dir: root, gitdir: local.gitdir, cache })
  let rows: ReadonlyArray<Row>
  let tracked: ReadonlyArray<string>
  if (head === undefined) {
    tracked = staged.filter((p) => !skip(p)).sort()
    rows = tracked.map((p): Row => [p, 0, 2, 2])
  } else {
    const walked = await trackedRows({ fs: statusFs(local.gitdir), dir: root, gitdir: local.gitdir, cache }, head, skip)
    rows = walked.rows
    tracked = walked.known
  }
  const changes: Array<WorkingChange> = []
  for (const [p, h, w, st] of rows) {
    if (h === 0 && w === 0) continue
    const status = h === 0 ? (st === 0 ? "untracked" : "added") : w === 0 ? "deleted" : w === 1 && st === 1 ? undefined : "modified"
    if (status !== undefined) changes.push({ path: p, status })
  }
  const known = new Set(tracked)
  const folders = new Set(tracked.flatMap((p) => p.split("/").slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("/"))))
  const visit = async (rel: string): Promise<void> => {
    const entries = await fs.promises.readdir(path.join(root, rel), { withFileTypes: true }).catch(() => [])
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name === ".git") continue
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`
      if (known.has(child) || skip(child)) continue
      if (!folders.has(child) && (await git.isIgnored({ fs: readOnlyFs, dir: root, gitdir: local.gitdir, filepath: child }))) continue
      if (entry.isDirectory()) await visit(child)
      else if (entry.isFile() || entry.isSymbolicLink()) changes.push({ path: child, status: "untracked" })
    }
  }
  await visit("")
  return { root, changes: changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), ...(head === undefined ? {} : { head }) }
}

/** `name = …` of the `[user]` section of a git config file's text. */
const userNameIn = (text: string): string | undefined => {
  let inUser = false
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line.startsWith("[")) inUser = /^\[user\]/i.test(line)
    else if (inUser) {
      const m = /^name\s*=\s*(.*)$/i.exec(line)
      if (m !== null) return m[1]!.replace(/^"(.*)"$/, "$1").trim() || undefined
    }
  }
  return undefined
}

/** The repository's config first, then GIT_CONFIG_GLOBAL or ~/.gitconfig and $XDG_CONFIG_HOME/git/config. */
const userName = async (dir: string): Promise<string | undefined> => {
  const root = await git.findRoot({ fs: readOnlyFs, filepath: path.resolve(dir) }).catch(() => undefined)
  if (root !== undefined) {
    const local: unknown = await git.getConfig({ fs: readOnlyFs, dir: root, gitdir: openLocalRepository(root).gitdir, path: "user.name" }).catch(() => undefined)
    if (typeof local === "string" && local.trim() !== "") return local.trim()
  }
  const home = process.env["HOME"] ?? ""
  const globals = process.env["GIT_CONFIG_GLOBAL"] !== undefined
    ? [process.env["GIT_CONFIG_GLOBAL"]]
    : [path.join(home, ".gitconfig"), path.join(process.env["XDG_CONFIG_HOME"] ?? path.join(home, ".config"), "git", "config")]
  for (const file of globals) {
    const text = await fs.promises.readFile(file, "utf8").catch(() => undefined)
    const name = text === undefined ? undefined : userNameIn(text)
    if (name !== undefined) return name
  }
  return undefined
}

const describe = (dir: string, cause: unknown): GitHistoryUnreadable => {
  if (cause instanceof Unreadable || cause instanceof GitSourceProblem) return new GitHistoryUnreadable({ dir, reason: cause.reason, hint: cause.hint })
  const detail = cause instanceof Error ? cause.message : String(cause)
  return new GitHistoryUnreadable({
    dir,
    reason: `the git history is damaged (${errorCode(cause) === "NotFoundError" ? "a commit or tree object is missing" : "an object could not be read"}: ${detail})`,
    hint: "check it with `git fsck`; nothing was written"
  })
}

/** The history read with isomorphic-git through a file system that refuses writes. */
export const GitHistoryIsomorphic = Layer.succeed(
  GitHistory,
  GitHistory.of({
    since: (dir, since) => Effect.tryPromise({ try: () => walk(dir, since), catch: (cause) => describe(dir, cause) }),
    trackedFiles: (dir) => Effect.tryPromise({ try: () => tracked(dir), catch: (cause) => describe(dir, cause) }),
    workingChanges: (dir, skip) => Effect.tryPromise({ try: () => working(dir, skip ?? (() => false)), catch: (cause) => describe(dir, cause) }),
    userName: (dir) => Effect.orElseSucceed(Effect.tryPromise(() => userName(dir)), () => undefined)
  })
)
