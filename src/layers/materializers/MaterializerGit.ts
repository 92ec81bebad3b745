import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Runtime } from "effect"
import type { BundleSource } from "../../domain/Config.js"
import { sourceLocator } from "../../domain/Source.js"
import { MaterializeFailed, type Materialized } from "../../services/Materializer.js"
import { resolveUserPath } from "../fs/WorkspaceConfigFile.js"
import type { HttpClient } from "isomorphic-git"
import { bundleHttp } from "../http/BundleHttp.js"
import { gitHttpPlugin } from "../http/GitHttpPlugin.js"
import { FetchFailed, FetchRefused } from "../http/SafeHttp.js"
import { bundleCacheDir, commitStaging, discardCache, discardStaging, existingRevision, makeStagingDir } from "./CacheSources.js"
import { displayUrl, fetchRemote, isRemoteFailure } from "./git/FetchRemote.js"
import { GitSourceProblem } from "./git/GitSourceProblem.js"
import { openLocalRepository, readOnlyFs } from "./git/LocalRepository.js"
import { commitTree, peelToCommit, resolveCommit, type GitReader } from "./git/ResolveCommit.js"
import { writeTree } from "./git/WriteTree.js"
import type { MaterializerContext, SourceMaterializer } from "./SourceMaterializer.js"

/** The fetch gitdir of a remote source, next to its revisions (CacheSources.pruneCache keeps this name). */
const GIT_CACHE = ".git-cache"

type Location = { readonly kind: "local"; readonly dir: string } | { readonly kind: "remote"; readonly url: string }

/** Limits of one request to a git server: a pack can be large and slow, but a stalled server fails. */
const GIT_HTTP = { maxBytes: 2 * 1024 * 1024 * 1024, timeoutMs: 30 * 60_000, idleTimeoutMs: 60_000 } as const

/**
 * Where a git source lives: a local repository (a path, relative to the
 * config file's folder, or a file:// URL) or a remote one over http(s). The
 * bundle HTTP client decides about a remote: plain http only with
 * --allow-insecure (source.allowInsecure) or for a host in website.allowHosts,
 * and the address policy for every host.
 */
const locate = (url: string, configDir: string): Location => {
  if (/^file:/i.test(url)) {
    try {
      return { kind: "local", dir: fileURLToPath(url) }
    } catch {
      throw new GitSourceProblem(`'${url}' is not a local file:// URL`, "use file:///absolute/path/to/repo")
    }
  }
  if (/^https?:\/\//i.test(url)) return { kind: "remote", url }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/\\]+@[^/\\]+:/.test(url)) {
    throw new GitSourceProblem(`unsupported git URL '${displayUrl(url)}'`, "use the repository's https:// URL, a file:// URL or a local path")
  }
  return { kind: "local", dir: resolveUserPath(url, configDir) }
}

/** isomorphic-git and Node failures in words a user can act on; GitSourceProblem is already worded. */
const explain = (cause: unknown, location: Location | undefined): { reason: string; hint: string } => {
  if (cause instanceof GitSourceProblem) return { reason: cause.reason, hint: cause.hint }
  const error = cause as { code?: string; message?: string; data?: { statusCode?: number; statusMessage?: string } } | null
  const where = location === undefined ? "the repository" : location.kind === "remote" ? displayUrl(location.url) : location.dir
  // The bundle HTTP client's failures: named by the repository, and by the hop when a redirect led elsewhere.
  if (cause instanceof FetchRefused || cause instanceof FetchFailed) {
    const redirected = location?.kind === "remote" && URL.canParse(location.url) && URL.canParse(cause.url) && new URL(cause.url).origin !== new URL(location.url).origin
    const at = redirected ? ` (redirected to ${displayUrl(cause.url)})` : ""
    if (cause instanceof FetchRefused) return { reason: `${where} refused${at}: ${cause.reason}`, hint: cause.hint }
    const code = /^network error \((\w+)\)$/.exec(cause.reason)?.[1]
    if (code !== undefined) return { reason: `network error reaching ${where}${at}: ${code}`, hint: "check the URL and your network connection, then retry" }
    if (cause.timedOut === true) return { reason: `${where} stopped answering${at} (${cause.reason})`, hint: "retry later" }
    return { reason: `${where}${at}: ${cause.reason}`, hint: cause.tooLarge === true ? "akm caps what one git request may download; use a smaller repository" : "check the URL and your network connection, then retry" }
  }
  const code = String(error?.code ?? "")
  if (code === "HttpError") {
    const status = error?.data?.statusCode
    if (status === 404) return { reason: `repository not found at ${where} (HTTP 404)`, hint: "check the URL; a private repository is not reachable without credentials" }
    if (status === 401 || status === 403) return { reason: `the server refused access to ${where} (HTTP ${status})`, hint: "check the URL; akm does not prompt for credentials" }
    return { reason: `the server answered HTTP ${status ?? "?"} ${error?.data?.statusMessage ?? ""} for ${where}`.trim(), hint: "try again later; check the URL if it persists" }
  }
  if (code === "SmartHttpError" || code === "ParseError") return { reason: `${where} does not serve a git repository`, hint: "give the repository's clone URL (often ending in .git)" }
  if (code === "UrlParseError") return { reason: `'${where}' is not a valid URL`, hint: "use https://host/owner/repo.git" }
  if (/^E[A-Z]+$/.test(code) && location?.kind === "remote") {
    return { reason: `network error reaching ${where}: ${code}`, hint: "check the URL and your network connection, then retry" }
  }
  if (error?.message === "Request timed out") return { reason: `${where} stopped answering (timed out)`, hint: "retry later" }
  if (code.startsWith("ERR_TLS") || /CERT/.test(code)) return { reason: `the TLS certificate of ${where} was refused (${code})`, hint: "check the URL; akm does not skip certificate checks" }
  if (code === "NotFoundError") return { reason: `${where} is missing a git object (${error?.message ?? "not found"})`, hint: "the repository may be incomplete (shallow or using alternates); try a full clone of it" }
  return { reason: `reading ${where} failed: ${error?.message ?? String(cause)}`, hint: "check that the repository is intact (`git fsck`)" }
}

interface Run {
  readonly sourcesDir: string
  readonly configDir: string
  readonly bundle: string
  readonly source: Extract<BundleSource, { kind: "git" }>
  readonly onProgress: (done: number, total?: number) => void
  readonly http: HttpClient
}

/** Resolves the commit, then writes its tree into a fresh revision directory unless that revision is already cached. */
const materializeGit = async (run: Run, location: Location): Promise<Materialized> => {
  const { repo, commit } = location.kind === "local" ? await openLocal(location.dir, run.source.ref) : await openRemote(run, location.url)
  const base = { revision: commit, locator: sourceLocator(run.source) }
  const existing = existingRevision(run.sourcesDir, run.bundle, commit)
  if (existing !== undefined) return { ...base, root: existing }
  const staging = makeStagingDir(run.sourcesDir, run.bundle)
  try {
    const written = await writeTree(repo, await commitTree(repo, commit), staging, (files) => files % 50 === 0 && run.onProgress(files))
    return { ...base, root: commitStaging(run.sourcesDir, run.bundle, commit, staging), diagnostics: written.diagnostics }
  } catch (cause) {
    discardStaging(staging)
    throw cause
  }
}

/** A user's repository is read through a file system that refuses writes: no checkout, no index, no fetch into it. */
const openLocal = async (dir: string, ref: string | undefined) => {
  const local = openLocalRepository(dir)
  const repo: GitReader = { fs: readOnlyFs, gitdir: local.gitdir, cache: {} }
  return { repo, commit: await resolveCommit(repo, ref, local.head) }
}

const openRemote = async (run: Run, url: string) => {
  const { repo, oid } = await fetchRemote(run.http, path.join(bundleCacheDir(run.sourcesDir, run.bundle), GIT_CACHE), url, run.source.ref, run.onProgress)
  return { repo, commit: await peelToCommit(repo, oid, run.source.ref ?? "HEAD") }
}

/**
 * A remote source whose cache gitdir turns out damaged (a truncated pack, a
 * half-written ref after a crash) is fetched again into a fresh cache, once;
 * server, network and ref failures are reported as they are.
 */
const withFreshCacheOnce = async (run: Run, location: Location, attempt: () => Promise<Materialized>): Promise<Materialized> => {
  const gitdir = path.join(bundleCacheDir(run.sourcesDir, run.bundle), GIT_CACHE)
  const existed = location.kind === "remote" && fs.existsSync(gitdir)
  try {
    return await attempt()
  } catch (cause) {
    if (!existed || isRemoteFailure(cause)) throw cause
    fs.rmSync(gitdir, { recursive: true, force: true })
    return attempt()
  }
}

const discardQuietly = (sourcesDir: string, bundle: string): void => {
  try {
    discardCache(sourcesDir, bundle)
  } catch {
    // Best effort: the failure being reported matters more than a leftover cache folder.
  }
}

/**
 * Git sources (spec 02 §2): the tree of the resolved commit is materialized
 * into $CACHE/sources/<bundle>/<sha> and the sha is the revision. Nothing from
 * the repository is run (R-BUN-1): isomorphic-git has no hooks, and files are
 * only written. A failure leaves no staging directory and never touches an
 * existing revision (R-BUN-2); a first install that fails leaves no cache.
 */
export const makeGitMaterializer = (ctx: MaterializerContext): SourceMaterializer<"git"> => ({
  kind: "git",
  cached: true,
  materialize: (bundle, source) =>
    Effect.gen(function* () {
      const task = `clone ${bundle}`
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())
      const firstInstall = !fs.existsSync(bundleCacheDir(ctx.sourcesDir, bundle))
      const fail = (location: Location | undefined) => (cause: unknown) => {
        // A first install that failed leaves nothing behind (a later update keeps the cache for its next attempt).
        if (firstInstall) discardQuietly(ctx.sourcesDir, bundle)
        return new MaterializeFailed({ bundle, source: displayUrl(source.url), ...explain(cause, location) })
      }
      const config = yield* Effect.mapError(ctx.config, (cause) =>
        new MaterializeFailed({ bundle, source: displayUrl(source.url), reason: `cannot read the configuration: ${String((cause as Error)?.message ?? cause)}`, hint: "fix config.yaml (akm config validate)" }))
      const client = yield* Effect.acquireRelease(Effect.sync(() => bundleHttp(config, { ...GIT_HTTP, allowInsecure: source.allowInsecure === true })), (c) => c.close)
      const run: Run = { sourcesDir: ctx.sourcesDir, configDir: ctx.configDir, bundle, source, onProgress: (done, total) => void runFork(ctx.progress(task, done, total)), http: gitHttpPlugin(client) }
      const materialized = yield* Effect.try({ try: () => locate(source.url, ctx.configDir), catch: fail(undefined) }).pipe(
        Effect.flatMap((location) => Effect.tryPromise({ try: () => withFreshCacheOnce(run, location, () => materializeGit(run, location)), catch: fail(location) })),
        Effect.tapError(() => ctx.progressDone(task, "failed"))
      )
      yield* ctx.progressDone(task, materialized.revision?.slice(0, 12))
      return materialized
    }).pipe(Effect.scoped)
})
