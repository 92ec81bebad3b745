import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer, Redacted } from "effect"
import * as git from "isomorphic-git"
import { GitSync, SyncProblem, type Checkout, type FileMove, type ForeignCommit, type OwnCommit, type RemoteAccess, type SyncIntent, type SyncPlan, type WorkTreeState } from "../../services/GitSync.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { bundleHttp } from "../http/BundleHttp.js"
import { gitHttpPlugin } from "../http/GitHttpPlugin.js"
import { FetchFailed, FetchRefused } from "../http/SafeHttp.js"
import { displayUrl } from "../materializers/git/FetchRemote.js"
import { openLocalRepository } from "../materializers/git/LocalRepository.js"
import { AKM_TRAILER } from "./ExactPathCommit.js"

/**
 * `akm sync` on isomorphic-git (issue 26, docs/decisions/0029-sync.md). The
 * upstream branch is fetched into a bare gitdir of akm's cache, so planning
 * (and --dry-run) reads the user's repository and writes nothing to it; the
 * fetched objects are copied into the checkout only once the transaction
 * engine has moved the files. Nothing here merges, rebases, resets or stashes.
 */

/** Limits of one request to a git server, as for git bundles. */
const GIT_HTTP = { maxBytes: 2 * 1024 * 1024 * 1024, timeoutMs: 30 * 60_000, idleTimeoutMs: 60_000 } as const
/** The ref in the cache gitdir that holds the last fetched tip. */
const TIP = "refs/heads/akm-sync"
const TRAILER_LINE = new RegExp(`^${AKM_TRAILER}: \\S+\\s*$`, "m")

class Problem extends Error {
  constructor(readonly reason: string, readonly hint: string) {
    super(reason)
  }
}

interface Entry {
  readonly oid: string
  readonly mode: string
}

interface Repos {
  readonly local: string
  readonly cached: string
  readonly cache: object
}

/** Reads from the first gitdir that has the object. */
const readIn = async <A>(gitdirs: ReadonlyArray<string>, read: (gitdir: string) => Promise<A>): Promise<A> => {
  let last: unknown
  for (const gitdir of gitdirs) {
    if (!fs.existsSync(gitdir)) continue
    try {
      return await read(gitdir)
    } catch (cause) {
      last = cause
    }
  }
  throw last ?? new Error("object not found")
}

const both = (repos: Repos) => [repos.local, repos.cached]

const readCommit = (repos: Repos, oid: string) => readIn(both(repos), (gitdir) => git.readCommit({ fs, gitdir, oid, cache: repos.cache }))
const readTree = async (repos: Repos, oid: string | undefined): Promise<ReadonlyArray<git.TreeEntry>> =>
  oid === undefined ? [] : (await readIn(both(repos), (gitdir) => git.readTree({ fs, gitdir, oid, cache: repos.cache }))).tree
const readBlob = async (repos: Repos, oid: string): Promise<Uint8Array> =>
  (await readIn(both(repos), (gitdir) => git.readBlob({ fs, gitdir, oid, cache: repos.cache }))).blob

/** Every commit reachable from `start` (a shallow boundary ends the walk there). */
const ancestors = async (repos: Repos, start: string): Promise<Map<string, git.CommitObject>> => {
  const seen = new Map<string, git.CommitObject>()
  const queue = [start]
  while (queue.length > 0) {
    const oid = queue.pop()!
    if (seen.has(oid)) continue
    const commit = await readCommit(repos, oid).catch((cause: unknown) => {
      if (oid === start) throw cause
      return undefined
    })
    if (commit === undefined) continue
    seen.set(oid, commit.commit)
    queue.push(...commit.commit.parent)
  }
  return seen
}

interface Difference {
  readonly path: string
  readonly before: Entry | undefined
  readonly after: Entry | undefined
}

/** Files that differ between two trees; equal subtrees are never opened. */
const diffTrees = async (repos: Repos, before: string | undefined, after: string | undefined, prefix = "", into: Array<Difference> = []): Promise<Array<Difference>> => {
  if (before === after) return into
  const [old, now] = await Promise.all([readTree(repos, before), readTree(repos, after)])
  const olds = new Map(old.map((e) => [e.path, e]))
  const nows = new Map(now.map((e) => [e.path, e]))
  for (const name of [...new Set([...olds.keys(), ...nows.keys()])].sort()) {
    const a = olds.get(name)
    const b = nows.get(name)
    if (a?.oid === b?.oid && a?.mode === b?.mode) continue
    const full = `${prefix}${name}`
    const treeA = a?.type === "tree" ? a.oid : undefined
    const treeB = b?.type === "tree" ? b.oid : undefined
    if (treeA !== undefined || treeB !== undefined) await diffTrees(repos, treeA, treeB, `${full}/`, into)
    const fileA = a !== undefined && a.type !== "tree" ? { oid: a.oid, mode: a.mode } : undefined
    const fileB = b !== undefined && b.type !== "tree" ? { oid: b.oid, mode: b.mode } : undefined
    if (fileA !== undefined || fileB !== undefined) into.push({ path: full, before: fileA, after: fileB })
  }
  return into
}

/** The entry at a repository path in a tree, or undefined. */
const entryAt = async (repos: Repos, tree: string, repoPath: string): Promise<Entry | undefined> => {
  let oid = tree
  const parts = repoPath.split("/")
  for (const [i, part] of parts.entries()) {
    const entry = (await readTree(repos, oid)).find((e) => e.path === part)
    if (entry === undefined) return undefined
    if (i === parts.length - 1) return entry.type === "tree" ? undefined : { oid: entry.oid, mode: entry.mode }
    if (entry.type !== "tree") return undefined
    oid = entry.oid
  }
  return undefined
}

const isRegular = (entry: Entry | undefined) => entry === undefined || entry.mode === "100644" || entry.mode === "100755"

/** The bundle-relative path, or undefined when the file lies outside the bundle folder. */
const inBundle = (prefix: string, repoPath: string): string | undefined =>
  prefix === "" ? repoPath : repoPath.startsWith(`${prefix}/`) ? repoPath.slice(prefix.length + 1) : undefined

const subjectOf = (message: string) => message.split("\n")[0]!.trim()

const isOwn = (commit: git.CommitObject) => commit.parent.length === 1 && TRAILER_LINE.test(commit.message)

const withoutTrailer = (message: string) => message.replace(new RegExp(`\\n*^${AKM_TRAILER}: \\S+\\s*$`, "gm"), "").replace(/\s+$/, "")

/** The moves of a diff, or the paths akm cannot write (outside the bundle, links, submodules). */
const movesOf = async (repos: Repos, prefix: string, differences: ReadonlyArray<Difference>): Promise<{ moves: Array<FileMove>; outside: Array<string> }> => {
  const moves: Array<FileMove> = []
  const outside: Array<string> = []
  for (const d of differences) {
    const relative = inBundle(prefix, d.path)
    if (relative === undefined || !isRegular(d.before) || !isRegular(d.after)) {
      outside.push(d.path)
      continue
    }
    moves.push({
      path: relative,
      before: d.before === undefined ? undefined : await readBlob(repos, d.before.oid),
      after: d.after === undefined ? undefined : await readBlob(repos, d.after.oid),
      executable: d.after?.mode === "100755"
    })
  }
  return { moves, outside }
}

const isSshUrl = (url: string) => /^ssh:\/\//i.test(url) || /^git\+ssh:/i.test(url) || /^[^/\\:]+@[^/\\:]+:/.test(url)

const openCheckout = async (bundleRoot: string): Promise<Checkout> => {
  const real = fs.realpathSync(bundleRoot)
  const root = await git.findRoot({ fs, filepath: real }).catch(() => {
    throw new Problem("the bundle folder is not inside a git checkout", "akm sync works on writable bundles that are git checkouts; `git clone` the shared repository and add that folder")
  })
  const local = openLocalRepository(root)
  const gitdir = local.gitdir
  const branch = await git.currentBranch({ fs, dir: root, gitdir, fullname: false })
  if (branch === undefined || branch === null) throw new Problem("the checkout is not on a branch (detached HEAD)", "check out the branch you share (`git switch main`), then sync")
  const head = await git.resolveRef({ fs, gitdir, ref: `refs/heads/${branch}` }).catch(() => {
    throw new Problem(`branch '${branch}' has no commit yet`, "make a first commit, or clone the shared repository")
  })
  const config = async (key: string): Promise<string | undefined> => {
    const value: unknown = await git.getConfig({ fs, gitdir, path: key }).catch(() => undefined)
    return typeof value === "string" && value !== "" ? value : undefined
  }
  const remote = (await config(`branch.${branch}.remote`)) ?? "origin"
  const remoteRef = (await config(`branch.${branch}.merge`)) ?? `refs/heads/${branch}`
  const url = await config(`remote.${remote}.url`)
  if (url === undefined) throw new Problem(`branch '${branch}' has no remote to sync with (no remote '${remote}')`, "add the shared repository: `git remote add origin https://host/owner/repo.git`")
  if (isSshUrl(url)) {
    throw new Problem(`the remote '${remote}' is an ssh URL (${url}); akm reaches git servers over https only`, "add an https remote for the same repository (`git remote set-url origin https://host/owner/repo.git`) and give a token in AKM_GIT_TOKEN")
  }
  if (!/^https?:\/\//i.test(url)) throw new Problem(`the remote '${remote}' (${displayUrl(url)}) is not an https URL`, "akm sync reaches git servers over https only; point the remote at the repository's https URL")
  const prefix = path.relative(fs.realpathSync(root), real).split(path.sep).filter((s) => s !== "").join("/")
  return { root: fs.realpathSync(root), prefix, branch, head, remote, url, remoteRef }
}

const gitdirOf = (checkout: Checkout) => openLocalRepository(checkout.root).gitdir

/** akm's bare cache gitdir for one checkout, named by the checkout's gitdir. */
const cachedGitdir = (cacheDir: string, checkout: Checkout) =>
  path.join(cacheDir, "sync", `${createHash("sha256").update(fs.realpathSync(gitdirOf(checkout))).digest("hex").slice(0, 16)}.git`)

const onAuthOf = (access: RemoteAccess): git.AuthCallback | undefined =>
  access.token === undefined ? undefined : () => ({ username: "x-access-token", password: Redacted.value(access.token!) })

/** isomorphic-git and HTTP failures in words a user can act on, the token never among them. */
const explain = (checkout: Checkout, access: RemoteAccess, cause: unknown, doing: string): Problem => {
  const where = displayUrl(checkout.url)
  const token = access.token === undefined ? undefined : Redacted.value(access.token)
  const clean = (text: string) => (token === undefined || token === "" ? text : text.split(token).join("[redacted]"))
  if (cause instanceof Problem) return new Problem(clean(cause.reason), cause.hint)
  if (cause instanceof FetchRefused) return new Problem(clean(`${where} refused: ${cause.reason}`), cause.hint)
  if (cause instanceof FetchFailed) return new Problem(clean(`${doing} ${where} failed: ${cause.reason}`), "check the URL and your network connection, then retry")
  const error = cause as { code?: string; message?: string; data?: { statusCode?: number; statusMessage?: string; reason?: string } } | null
  const code = String(error?.code ?? "")
  if (code === "HttpError") {
    const status = error?.data?.statusCode
    if (status === 401 || status === 403) {
      return new Problem(
        `the server refused access to ${where} (HTTP ${status})${token === undefined ? " and no token was given" : " with the token given"}`,
        "give a token that may read (and push to) the repository: AKM_GIT_TOKEN, or git.token in the bundle's config as env:VAR or secret:<ref>"
      )
    }
    if (status === 404) return new Problem(`repository not found at ${where} (HTTP 404)`, "check the remote's URL; a private repository needs a token (AKM_GIT_TOKEN)")
    return new Problem(`the server answered HTTP ${status ?? "?"} for ${where}`, "try again later; check the remote's URL if it persists")
  }
  if (code === "PushRejectedError") {
    return new Problem(`the push to ${where} was rejected (${error?.data?.reason ?? "not a fast-forward"}): the remote moved since the fetch`, "run `akm sync --push` again")
  }
  if (code === "GitPushError") return new Problem(clean(`the server refused the push to ${where}: ${error?.message ?? ""}`), "check the token's permissions and the branch's protection rules")
  if (code === "SmartHttpError" || code === "ParseError") return new Problem(`${where} does not serve a git repository`, "check the remote's URL")
  return new Problem(clean(`${doing} ${where} failed: ${error?.message ?? String(cause)}`), "check the checkout with `git status` and `git fsck`; nothing was changed by akm")
}

const fetchTip = async (cacheDir: string, http: git.HttpClient, checkout: Checkout, access: RemoteAccess): Promise<string> => {
  const gitdir = cachedGitdir(cacheDir, checkout)
  {
    if (!fs.existsSync(path.join(gitdir, "HEAD"))) {
      await git.init({ fs, dir: gitdir, bare: true, defaultBranch: "akm-sync" })
      await git.setConfig({ fs, gitdir, path: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" })
    }
    const onAuth = onAuthOf(access)
    const result = await git.fetch({
      fs,
      gitdir,
      http,
      url: checkout.url,
      ref: "akm-sync",
      remoteRef: checkout.remoteRef,
      singleBranch: true,
      tags: false,
      ...(onAuth === undefined ? {} : { onAuth })
    })
    if (result.fetchHead === null) throw new Problem(`the remote has no branch ${checkout.remoteRef.replace(/^refs\/heads\//, "")}`, "push the branch first, or set the branch's upstream (`git branch --set-upstream-to`)")
    await git.writeRef({ fs, gitdir, ref: TIP, value: result.fetchHead, force: true })
    return result.fetchHead
  }
}

const planSync = async (cacheDir: string, checkout: Checkout, tip: string): Promise<SyncPlan> => {
  const repos: Repos = { local: gitdirOf(checkout), cached: cachedGitdir(cacheDir, checkout), cache: {} }
  const head = checkout.head
  if (head === tip) return { kind: "up-to-date", tip }
  const remote = await ancestors(repos, tip)
  const mine = await ancestors(repos, head)
  const localOnly = [...mine.keys()].filter((oid) => !remote.has(oid))
  const incoming = [...remote.keys()].filter((oid) => !mine.has(oid)).length
  const tipTree = remote.get(tip)!.tree
  const headTree = mine.get(head)!.tree
  const forward = async () => movesOf(repos, checkout.prefix, await diffTrees(repos, headTree, tipTree))
  if (localOnly.length === 0) {
    const { moves, outside } = await forward()
    return outside.length > 0 ? { kind: "outside", tip, incoming, paths: outside } : { kind: "fast-forward", tip, incoming, changes: moves }
  }
  const foreign: Array<ForeignCommit> = localOnly.filter((oid) => !isOwn(mine.get(oid)!)).map((oid) => ({ sha: oid, subject: subjectOf(mine.get(oid)!.message) }))
  // akm's own commits in order, oldest first, along the one parent chain down to the remote's history.
  const chain: Array<string> = []
  for (let oid = head; !remote.has(oid);) {
    const commit = mine.get(oid)
    if (commit === undefined || commit.parent.length !== 1) break
    chain.unshift(oid)
    oid = commit.parent[0]!
  }
  const linear = chain.length === localOnly.length
  if (incoming === 0) {
    const own = localOnly.filter((oid) => isOwn(mine.get(oid)!)).reverse().map((oid): OwnCommit => ({ sha: oid, message: withoutTrailer(mine.get(oid)!.message), subject: subjectOf(mine.get(oid)!.message), changes: [] }))
    return { kind: "ahead", tip, own, foreign }
  }
  if (foreign.length > 0 || !linear) {
    return { kind: "diverged", tip, incoming, foreign: foreign.length > 0 ? foreign : localOnly.map((oid) => ({ sha: oid, subject: subjectOf(mine.get(oid)!.message) })) }
  }
  const { moves, outside } = await forward()
  if (outside.length > 0) return { kind: "outside", tip, incoming, paths: outside }
  // Replay on the tip: each commit's before-bytes must be what the tip (plus the replays before it) holds.
  const overlay = new Map<string, Entry | undefined>()
  const current = async (repoPath: string) => (overlay.has(repoPath) ? overlay.get(repoPath) : entryAt(repos, tipTree, repoPath))
  const own: Array<OwnCommit> = []
  const conflicts: Array<string> = []
  const blocked: Array<string> = []
  for (const oid of chain) {
    const commit = mine.get(oid)!
    const parentTree = mine.get(commit.parent[0]!)?.tree ?? (await readCommit(repos, commit.parent[0]!)).commit.tree
    const changes: Array<FileMove> = []
    for (const d of await diffTrees(repos, parentTree, commit.tree)) {
      const relative = inBundle(checkout.prefix, d.path)
      if (relative === undefined || !isRegular(d.before) || !isRegular(d.after)) {
        blocked.push(d.path)
        continue
      }
      const now = await current(d.path)
      if (now?.oid === d.after?.oid && (d.after === undefined || now?.mode === d.after.mode)) continue
      if (now?.oid !== d.before?.oid) {
        conflicts.push(relative)
        continue
      }
      changes.push({
        path: relative,
        before: now === undefined ? undefined : await readBlob(repos, now.oid),
        after: d.after === undefined ? undefined : await readBlob(repos, d.after.oid),
        executable: d.after?.mode === "100755"
      })
      overlay.set(d.path, d.after)
    }
    own.push({ sha: oid, message: withoutTrailer(commit.message), subject: subjectOf(commit.message), changes })
  }
  if (blocked.length > 0) return { kind: "outside", tip, incoming, paths: [...new Set(blocked)] }
  if (conflicts.length > 0) return { kind: "conflict", tip, incoming, paths: [...new Set(conflicts)].sort() }
  return { kind: "replay", tip, incoming, changes: moves, own }
}

const hasObject = (gitdir: string, oid: string, cache: object) =>
  git.readObject({ fs, gitdir, oid, format: "deflated", cache }).then(() => true, () => false)

/** Copies what the checkout lacks of `to`'s history from the cache gitdir: commits, trees and blobs. */
const copyObjects = async (repos: Repos, to: string): Promise<void> => {
  const queue = [to]
  const seen = new Set<string>()
  const copy = async (oid: string): Promise<boolean> => {
    if (seen.has(oid)) return false
    seen.add(oid)
    if (await hasObject(repos.local, oid, repos.cache)) return false
    const object = await git.readObject({ fs, gitdir: repos.cached, oid, format: "content", cache: repos.cache })
    await git.writeObject({ fs, gitdir: repos.local, type: object.type as "commit" | "tree" | "blob" | "tag", object: object.object as Uint8Array, format: "content" })
    return true
  }
  const copyTree = async (oid: string): Promise<void> => {
    if (!(await copy(oid))) return
    for (const entry of (await git.readTree({ fs, gitdir: repos.cached, oid, cache: repos.cache })).tree) {
      if (entry.type === "tree") await copyTree(entry.oid)
      else if (entry.type === "blob") await copy(entry.oid)
    }
  }
  while (queue.length > 0) {
    const oid = queue.pop()!
    if (!(await copy(oid))) continue
    const { commit } = await git.readCommit({ fs, gitdir: repos.cached, oid, cache: repos.cache })
    await copyTree(commit.tree)
    queue.push(...commit.parent)
  }
}

/** `resuming`: an interrupted sync may have moved the branch already; the index entries follow either way. */
const advanceBranch = async (cacheDir: string, checkout: Checkout, from: string, to: string, resuming = false): Promise<void> => {
  const repos: Repos = { local: gitdirOf(checkout), cached: cachedGitdir(cacheDir, checkout), cache: {} }
  const ref = `refs/heads/${checkout.branch}`
  const now = await git.resolveRef({ fs, gitdir: repos.local, ref })
  if (now !== from && !(resuming && now === to)) throw new Problem(`branch '${checkout.branch}' moved while akm was syncing (now ${now.slice(0, 12)})`, "run `akm sync` again")
  await copyObjects(repos, to)
  const [fromTree, toTree] = await Promise.all([readCommit(repos, from), readCommit(repos, to)]).then((c) => c.map((x) => x.commit.tree))
  const changed = await diffTrees(repos, fromTree, toTree)
  if (now === from) await git.writeRef({ fs, gitdir: repos.local, ref, value: to, force: true })
  // The engine wrote the files already: the index entries follow them, so `git status` stays clean.
  for (const d of changed) {
    await (d.after === undefined
      ? git.updateIndex({ fs, dir: checkout.root, gitdir: repos.local, filepath: d.path, remove: true, force: true })
      : git.updateIndex({ fs, dir: checkout.root, gitdir: repos.local, filepath: d.path, add: true }))
  }
  await trackRemote(checkout, repos.local, to)
}

/** The git blob id of a work-tree file as it is now; undefined when absent, "" when not a regular file. */
const workOid = async (file: string): Promise<string | undefined> => {
  const stat = await fs.promises.lstat(file).catch(() => undefined)
  if (stat === undefined) return undefined
  if (!stat.isFile()) return ""
  return (await git.hashBlob({ object: await fs.promises.readFile(file) })).oid
}

const workTreeAt = async (cacheDir: string, checkout: Checkout, from: string, to: string): Promise<WorkTreeState> => {
  const repos: Repos = { local: gitdirOf(checkout), cached: cachedGitdir(cacheDir, checkout), cache: {} }
  const [fromTree, toTree] = await Promise.all([readCommit(repos, from), readCommit(repos, to)]).then((c) => c.map((x) => x.commit.tree))
  let atTo = true
  let atFrom = true
  const odd: Array<string> = []
  for (const d of await diffTrees(repos, fromTree, toTree)) {
    const oid = await workOid(path.join(checkout.root, ...d.path.split("/")))
    const isTo = oid === d.after?.oid
    const isFrom = oid === d.before?.oid
    atTo &&= isTo
    atFrom &&= isFrom
    if (!isTo) odd.push(d.path)
  }
  return atTo ? { at: "to" } : atFrom ? { at: "from" } : { at: "neither", paths: odd }
}

/** The intent record of one checkout, in akm's data folder (named like its cache gitdir). */
const intentFile = (dataDir: string, checkout: Checkout) =>
  path.join(dataDir, "sync", `${createHash("sha256").update(fs.realpathSync(gitdirOf(checkout))).digest("hex").slice(0, 16)}.intent.json`)

/** Written to a temp file, fsynced, renamed over and the folder fsynced: after a crash it is either the old record or the new one. */
const writeIntent = async (file: string, checkout: Checkout, intent: SyncIntent): Promise<void> => {
  await fs.promises.mkdir(path.dirname(file), { recursive: true })
  const temp = `${file}.${process.pid}.tmp`
  const handle = await fs.promises.open(temp, "w")
  try {
    await handle.writeFile(`${JSON.stringify({ checkout: checkout.root, ...intent }, null, 2)}\n`)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fs.promises.rename(temp, file)
  await syncDir(path.dirname(file))
}

const syncDir = async (dir: string): Promise<void> => {
  const handle = await fs.promises.open(dir, "r")
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

const isSha = (value: unknown): value is string => typeof value === "string" && /^[0-9a-f]{40}$/.test(value)

const readIntent = async (file: string): Promise<SyncIntent | undefined> => {
  const text = await fs.promises.readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined
    throw error
  })
  if (text === undefined) return undefined
  const record = (() => {
    try {
      return JSON.parse(text) as Record<string, unknown>
    } catch {
      return undefined
    }
  })()
  if (record === undefined || typeof record["branch"] !== "string" || !isSha(record["from"]) || !isSha(record["to"]) || typeof record["transaction"] !== "string") {
    throw new Problem(`the record of an interrupted sync (${file}) is damaged`, `look at the checkout with \`git status\`; remove ${file} once it is as it should be, then \`akm sync\``)
  }
  return { branch: record["branch"], from: record["from"], to: record["to"], transaction: record["transaction"] }
}

const removeIntent = async (file: string): Promise<void> => {
  await fs.promises.rm(file, { force: true })
  await syncDir(path.dirname(file)).catch(() => undefined)
}

/** The checkout's remote-tracking ref follows what akm fetched or pushed, as `git fetch` and `git push` do. */
const trackRemote = async (checkout: Checkout, gitdir: string, oid: string) => {
  if (!checkout.remoteRef.startsWith("refs/heads/")) return
  await git.writeRef({ fs, gitdir, ref: `refs/remotes/${checkout.remote}/${checkout.remoteRef.slice("refs/heads/".length)}`, value: oid, force: true })
}

const pushBranch = async (http: git.HttpClient, checkout: Checkout, access: RemoteAccess): Promise<string> => {
  const gitdir = gitdirOf(checkout)
  {
    const head = await git.resolveRef({ fs, gitdir, ref: `refs/heads/${checkout.branch}` })
    const onAuth = onAuthOf(access)
    const result = await git.push({
      fs,
      dir: checkout.root,
      gitdir,
      http,
      url: checkout.url,
      ref: `refs/heads/${checkout.branch}`,
      remoteRef: checkout.remoteRef,
      ...(onAuth === undefined ? {} : { onAuth })
    })
    const status = result.refs[checkout.remoteRef]
    if (!result.ok || (status !== undefined && !status.ok)) {
      throw Object.assign(new Error(status?.error ?? result.error ?? "the server did not accept the push"), { code: "GitPushError" })
    }
    await trackRemote(checkout, gitdir, head)
    return head
  }
}

/** GitSync on isomorphic-git; fetches go through the bundle HTTP client (address policy, --allow-insecure). */
export const GitSyncIsomorphic = Layer.effect(
  GitSync,
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const cacheDir = workspace.paths.cacheDir
    const dataDir = workspace.paths.dataDir
    const fail = (checkout: Checkout | string, access: RemoteAccess, doing: string) => (cause: unknown) => {
      const problem = typeof checkout === "string" ? (cause instanceof Problem ? cause : new Problem(String((cause as Error)?.message ?? cause), "check the folder with `git status`")) : explain(checkout, access, cause, doing)
      return new SyncProblem({ dir: typeof checkout === "string" ? checkout : checkout.root, reason: problem.reason, hint: problem.hint })
    }
    const noAccess: RemoteAccess = { allowInsecure: false, token: undefined }
    /** The bundle HTTP client for one call, closed after it (website.allowHosts from config; an unreadable config exempts no host). */
    const withHttp = <A>(allowInsecure: boolean, use: (http: git.HttpClient) => Effect.Effect<A, SyncProblem>) =>
      Effect.flatMap(Effect.orElseSucceed(workspace.read, () => undefined), (config) =>
        Effect.acquireUseRelease(
          Effect.sync(() => bundleHttp(config ?? { bundles: {} }, { ...GIT_HTTP, allowInsecure })),
          (client) => use(gitHttpPlugin(client)),
          (client) => client.close
        ))
    return GitSync.of({
      open: (bundleRoot) => Effect.tryPromise({ try: () => openCheckout(bundleRoot), catch: fail(bundleRoot, noAccess, "opening") }),
      fetch: (checkout, access) =>
        withHttp(access.allowInsecure, (http) => Effect.tryPromise({ try: () => fetchTip(cacheDir, http, checkout, access), catch: fail(checkout, access, "fetching from") })),
      plan: (checkout, tip) => Effect.tryPromise({ try: () => planSync(cacheDir, checkout, tip), catch: fail(checkout, noAccess, "reading") }),
      advance: (checkout, from, to) => Effect.tryPromise({ try: () => advanceBranch(cacheDir, checkout, from, to), catch: fail(checkout, noAccess, "moving the branch of") }),
      finish: (checkout, from, to) => Effect.tryPromise({ try: () => advanceBranch(cacheDir, checkout, from, to, true), catch: fail(checkout, noAccess, "moving the branch of") }),
      intend: (checkout, intent) => Effect.tryPromise({ try: () => writeIntent(intentFile(dataDir, checkout), checkout, intent), catch: fail(checkout.root, noAccess, "recording the sync of") }),
      intent: (checkout) => Effect.tryPromise({ try: () => readIntent(intentFile(dataDir, checkout)), catch: fail(checkout.root, noAccess, "reading the sync record of") }),
      settle: (checkout) => Effect.tryPromise({ try: () => removeIntent(intentFile(dataDir, checkout)), catch: fail(checkout.root, noAccess, "removing the sync record of") }),
      workTree: (checkout, from, to) => Effect.tryPromise({ try: () => workTreeAt(cacheDir, checkout, from, to), catch: fail(checkout, noAccess, "reading") }),
      push: (checkout, access) =>
        withHttp(access.allowInsecure, (http) => Effect.tryPromise({ try: () => pushBranch(http, checkout, access), catch: fail(checkout, access, "pushing to") }))
    })
  })
)
