import * as fs from "node:fs"
import * as path from "node:path"
import * as git from "isomorphic-git"
import { FetchFailed, FetchRefused } from "../../http/SafeHttp.js"
import { checkRefName, GitSourceProblem, refNotFound } from "./GitSourceProblem.js"
import type { GitReader } from "./ResolveCommit.js"


/**
 * The local branch in the cache gitdir that remembers the last fetched commit,
 * so the next fetch can tell the server what it already has.
 */
const PIN = "akm-pin"

const isHex = (ref: string) => /^[0-9a-f]{4,40}$/i.test(ref)
const errorCode = (cause: unknown) => (cause as { code?: unknown } | null)?.code

/** The URL without user:password, for messages. */
export const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    parsed.username = ""
    parsed.password = ""
    return parsed.href
  } catch {
    return url
  }
}

export interface FetchProgress {
  (loaded: number, total?: number): void
}

/**
 * Fetches what `ref` names from a remote https repository into the cache gitdir
 * (a bare repository owned by akm) over `http` (the bundle HTTP client's plugin),
 * and returns the fetched object id (a commit, or an annotated tag to peel).
 * A branch or tag is fetched alone at depth 1; a commit sha needs history, so
 * it is looked up in the cache first and otherwise fetched with every branch.
 */
export const fetchRemote = async (http: git.HttpClient, gitdir: string, url: string, ref: string | undefined, onProgress: FetchProgress): Promise<{ readonly oid: string; readonly repo: GitReader }> => {
  if (ref !== undefined) checkRefName(ref)
  const repo: GitReader = { fs, gitdir, cache: {} }
  // A full sha names one commit forever (git reads 40 hex digits as an object name before any ref): once cached, no network.
  if (ref !== undefined && /^[0-9a-f]{40}$/i.test(ref) && (await hasCommit(repo, ref.toLowerCase()))) return { oid: ref.toLowerCase(), repo }
  const advertised = await listRefs(http, url)
  if (advertised.length === 0) throw new GitSourceProblem(`the repository at ${displayUrl(url)} is empty`, "push a commit to it first")
  const wanted = ref === undefined ? "HEAD" : matchRef(advertised, ref)
  if (wanted === undefined && (ref === undefined || !isHex(ref))) throw notFound(ref ?? "HEAD", advertised)

  const fetch = (options: { remoteRef: string; singleBranch: boolean; depth?: number }) =>
    git.fetch({
      ...repo,
      http,
      url,
      ref: PIN,
      remoteRef: options.remoteRef,
      singleBranch: options.singleBranch,
      tags: !options.singleBranch,
      ...(options.depth === undefined ? {} : { depth: options.depth }),
      onProgress: (event) => onProgress(event.loaded, event.total > 0 ? event.total : undefined)
    })

  if (wanted !== undefined) {
    if (wanted === "HEAD" && !advertised.some((r) => r.ref === "HEAD")) {
      throw new GitSourceProblem(`the repository at ${displayUrl(url)} has no default branch`, "name a branch with --ref")
    }
    await ensureGitdir(gitdir)
    const { fetchHead } = await fetch({ remoteRef: wanted, singleBranch: true, depth: 1 })
    if (fetchHead === null) throw new GitSourceProblem(`the server sent nothing for '${ref ?? "HEAD"}'`, "try again; if it persists the remote repository may be broken")
    await git.writeRef({ ...repo, ref: `refs/heads/${PIN}`, value: fetchHead, force: true })
    return { oid: fetchHead, repo }
  }

  // A commit sha: no server advertises it, so look in the cache, then fetch all history.
  const sha = ref!.toLowerCase()
  const cached = fs.existsSync(gitdir) ? await git.expandOid({ ...repo, oid: sha }).catch(() => undefined) : undefined
  if (cached !== undefined) return { oid: cached, repo }
  // Shallow history cannot hold an arbitrary commit: start the cache over without it.
  if (fs.existsSync(path.join(gitdir, "shallow"))) fs.rmSync(gitdir, { recursive: true, force: true })
  await ensureGitdir(gitdir)
  await fetch({ remoteRef: advertised.some((r) => r.ref === "HEAD") ? "HEAD" : advertised[0]!.ref, singleBranch: false })
  const oid = await git.expandOid({ ...repo, oid: sha }).catch((cause: unknown) => {
    if (errorCode(cause) === "AmbiguousError") throw new GitSourceProblem(`'${ref}' matches several objects`, "give more characters of the commit sha")
    throw notFound(ref!, advertised)
  })
  return { oid, repo }
}

const hasCommit = (repo: GitReader, oid: string): Promise<boolean> =>
  fs.existsSync(repo.gitdir) ? git.readObject({ ...repo, oid, format: "content" }).then((o) => o.type === "commit", () => false) : Promise.resolve(false)

const listRefs = (http: git.HttpClient, url: string) => git.listServerRefs({ http, url, protocolVersion: 1, symrefs: true })

/** git's lookup order for a short name (git rev-parse: refs/<x>, refs/tags/<x>, refs/heads/<x>, refs/remotes/<x>). */
const matchRef = (advertised: ReadonlyArray<git.ServerRef>, ref: string): string | undefined => {
  const candidates = ref === "HEAD" || ref.startsWith("refs/") ? [ref] : [`refs/${ref}`, `refs/tags/${ref}`, `refs/heads/${ref}`, `refs/remotes/${ref}`]
  return candidates.find((c) => advertised.some((r) => r.ref === c))
}

const notFound = (ref: string, advertised: ReadonlyArray<git.ServerRef>) => {
  const named = (prefix: string) => advertised.filter((r) => r.ref.startsWith(prefix)).map((r) => r.ref.slice(prefix.length))
  return refNotFound(ref, named("refs/heads/"), named("refs/tags/"))
}

/** A bare repository owned by akm; the URL is passed on every fetch, so only the refspec (where fetched refs land) is configured. */
const ensureGitdir = async (gitdir: string): Promise<void> => {
  await git.init({ fs, dir: gitdir, bare: true, defaultBranch: PIN })
  await git.setConfig({ fs, gitdir, path: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" })
}

/** Failures of the server, the network or the ref; anything else during a remote materialization may be a damaged cache gitdir. */
export const isRemoteFailure = (cause: unknown): boolean =>
  cause instanceof GitSourceProblem || cause instanceof FetchRefused || cause instanceof FetchFailed ||
  ["HttpError", "SmartHttpError", "EmptyServerResponseError", "UserCanceledError", "UrlParseError"].includes(String(errorCode(cause))) ||
  /^E[A-Z]+$/.test(String(errorCode(cause))) || (cause as Error | null)?.message === "Request timed out"
