import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { Effect, Either, Schema } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { AkmConfig, type BundleSource } from "../../src/domain/Config.js"
import { makeGitMaterializer } from "../../src/layers/materializers/MaterializerGit.js"
import type { Materialized, MaterializeFailed } from "../../src/services/Materializer.js"
import { startGitHttpServer, type GitHttpServer } from "../support/gitHttpServer.js"
import { git, gitEnv, makeGitRepo, treeDigest, type GitRepo } from "../support/gitRepo.js"

// Spec 02 §2 (git), 00 §4.2 (isomorphic-git has no file transport), R-BUN-1, R-BUN-2.

type GitSource = Extract<BundleSource, { kind: "git" }>

const roots: Array<string> = []
afterEach(() => {
  for (const dir of roots.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** A temp workspace (cache, config folder, HOME for git) and a materializer pointed at it; the local test server is allowed as a user would allow it. */
const harness = (config: unknown = { website: { allowHosts: ["127.0.0.1"] } }) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-git-mat-")))
  roots.push(root)
  const home = path.join(root, "home")
  const configDir = path.join(root, "config")
  const sourcesDir = path.join(root, "cache", "sources")
  for (const dir of [home, configDir, sourcesDir]) fs.mkdirSync(dir, { recursive: true })
  const progress: Array<{ task: string; done: number; total?: number | undefined }> = []
  const materializer = makeGitMaterializer({
    sourcesDir,
    configDir,
    progress: (task, done, total) => Effect.sync(() => void progress.push({ task, done, total })),
    progressDone: () => Effect.void,
    config: Effect.succeed(Schema.decodeUnknownSync(AkmConfig)(config))
  })
  const run = (bundle: string, source: Omit<GitSource, "kind">): Promise<Either.Either<Materialized, MaterializeFailed>> =>
    Effect.runPromise(Effect.either(materializer.materialize(bundle, { kind: "git", ...source }, {})))
  const ok = async (bundle: string, source: Omit<GitSource, "kind">): Promise<Materialized> => {
    const result = await run(bundle, source)
    if (Either.isLeft(result)) throw new Error(`expected success, got: ${result.left.message} (${result.left.hint})`)
    return result.right
  }
  const failed = async (bundle: string, source: Omit<GitSource, "kind">): Promise<MaterializeFailed> => {
    const result = await run(bundle, source)
    if (Either.isRight(result)) throw new Error(`expected a failure, got revision ${result.right.revision}`)
    return result.left
  }
  const repo = (name: string, files?: Readonly<Record<string, string | null>>): GitRepo => makeGitRepo(path.join(root, name), home, files)
  /** The entries of a bundle's cache folder (revisions, .git-cache), never a staging dir left behind. */
  const cacheEntries = (bundle: string) => (fs.existsSync(path.join(sourcesDir, bundle)) ? fs.readdirSync(path.join(sourcesDir, bundle)).sort() : [])
  return { root, home, configDir, sourcesDir, progress, run, ok, failed, repo, cacheEntries }
}

const read = (root: string, rel: string) => fs.readFileSync(path.join(root, rel), "utf8")
const mode = (root: string, rel: string) => fs.statSync(path.join(root, rel)).mode & 0o777

describe("git materializer: local repositories (read directly, never written)", () => {
  it("materializes HEAD of a local path into $CACHE/sources/<bundle>/<sha>, every file 0644", async () => {
    const h = harness()
    const repo = h.repo("kb", { "README.md": "# KB\n", "notes/a.md": "alpha\n", "tools/run.sh": "#!/bin/sh\necho hi\n" })
    repo.git("update-index", "--chmod=+x", "tools/run.sh")
    repo.git("commit", "-q", "-m", "exec bit")
    const sha = repo.sha()

    const result = await h.ok("kb", { url: repo.dir })
    expect(result.revision).toBe(sha)
    expect(result.root).toBe(path.join(h.sourcesDir, "kb", sha))
    expect(result.locator).toBe(repo.dir)
    expect(read(result.root, "notes/a.md")).toBe("alpha\n")
    expect(read(result.root, "tools/run.sh")).toContain("echo hi")
    // R-BUN-1: akm never runs bundle files, so it never hands out an executable bit either.
    expect(mode(result.root, "tools/run.sh")).toBe(0o644)
    expect(fs.existsSync(path.join(result.root, ".git"))).toBe(false)
    expect(h.cacheEntries("kb")).toEqual([sha])
  })

  it("resolves a relative path against the config folder", async () => {
    const h = harness()
    const repo = h.repo("repos/rel", { "a.md": "a" })
    const result = await h.ok("rel", { url: path.relative(h.configDir, repo.dir) })
    expect(result.revision).toBe(repo.sha())
  })

  it("file:// URL at a branch, an annotated tag, a lightweight tag, a full and a short sha", async () => {
    const h = harness()
    const repo = h.repo("refs", { "v.md": "one" })
    const first = repo.sha()
    repo.git("tag", "-a", "v1", "-m", "release 1")
    repo.git("tag", "light")
    repo.git("checkout", "-q", "-b", "dev")
    const dev = repo.commit({ "v.md": "dev" })
    repo.git("checkout", "-q", "main")
    const main = repo.commit({ "v.md": "two" })
    const url = pathToFileURL(repo.dir).href

    const atHead = await h.ok("refs", { url })
    expect([atHead.revision, read(atHead.root, "v.md")]).toEqual([main, "two"])
    const atBranch = await h.ok("refs", { url, ref: "dev" })
    expect([atBranch.revision, read(atBranch.root, "v.md")]).toEqual([dev, "dev"])
    expect(atBranch.locator).toBe(`${url}#dev`)
    const atTag = await h.ok("refs", { url, ref: "v1" })
    expect([atTag.revision, read(atTag.root, "v.md")]).toEqual([first, "one"])
    expect((await h.ok("refs", { url, ref: "light" })).revision).toBe(first)
    expect((await h.ok("refs", { url, ref: dev })).revision).toBe(dev)
    expect((await h.ok("refs", { url, ref: dev.slice(0, 9).toUpperCase() })).revision).toBe(dev)
    expect((await h.ok("refs", { url, ref: "refs/heads/dev" })).revision).toBe(dev)
    expect(h.cacheEntries("refs")).toEqual([dev, first, main].sort())
  })

  it("a bare repository and a linked worktree are read too", async () => {
    const h = harness()
    const repo = h.repo("origin", { "a.md": "a" })
    git(h.root, h.home, "clone", "-q", "--bare", repo.dir, path.join(h.root, "bare.git"))
    expect((await h.ok("bare", { url: path.join(h.root, "bare.git") })).revision).toBe(repo.sha())

    repo.git("worktree", "add", "-q", "-b", "wt", path.join(h.root, "wt"))
    const wt = makeGitRepo(path.join(h.root, "wt"), h.home)
    const wtSha = wt.commit({ "wt.md": "from the worktree" })
    const result = await h.ok("wt", { url: path.join(h.root, "wt") })
    expect(result.revision).toBe(wtSha)
    expect(read(result.root, "wt.md")).toBe("from the worktree")
  })

  it("a new commit gives a new revision directory; the old one is untouched; the same commit reuses its directory", async () => {
    const h = harness()
    const repo = h.repo("kb", { "a.md": "v1" })
    const v1 = await h.ok("kb", { url: repo.dir })
    const before = treeDigest(v1.root)
    const again = await h.ok("kb", { url: repo.dir })
    expect(again.root).toBe(v1.root)
    expect(treeDigest(v1.root)).toBe(before) // reused, not re-written (mtimes included)

    repo.commit({ "a.md": "v2", "b.md": "new" })
    const v2 = await h.ok("kb", { url: repo.dir })
    expect(v2.revision).not.toBe(v1.revision)
    expect(v2.root).not.toBe(v1.root)
    expect([read(v2.root, "a.md"), read(v2.root, "b.md")]).toEqual(["v2", "new"])
    expect(treeDigest(v1.root)).toBe(before)
    expect(h.cacheEntries("kb")).toEqual([v1.revision, v2.revision].sort())
  })

  it("keeps symlinks that stay inside, skips escaping ones and submodules with diagnostics", async () => {
    const h = harness()
    const repo = h.repo("links", { "docs/guide.md": "guide", "docs/deep/x.md": "x" })
    const link = (rel: string, target: string) => {
      fs.mkdirSync(path.dirname(path.join(repo.dir, rel)), { recursive: true })
      fs.symlinkSync(target, path.join(repo.dir, rel))
    }
    link("guide-link.md", "docs/guide.md")
    link("docs/up.md", "../docs/guide.md")
    link("docs-dir", "docs")
    link("escape-rel", "../../../etc/passwd")
    link("escape-abs", "/etc/passwd")
    // Inside by its text, outside once the link it goes through is followed.
    link("docs/deep/root", "../..")
    link("docs/deep/through", "root/..")
    link("dangling.md", "missing.md")
    const lib = makeGitRepo(path.join(h.root, "lib"), h.home, { "lib.md": "lib" })
    repo.commit({})
    // A gitlink without a checkout: `git add -A` would drop it, so it is committed from the index alone.
    repo.git("update-index", "--add", "--cacheinfo", `160000,${lib.sha()},vendor/lib`)
    repo.git("commit", "-q", "-m", "submodule")
    const sha = repo.sha()

    const result = await h.ok("links", { url: repo.dir })
    expect(result.revision).toBe(sha)
    expect(read(result.root, "guide-link.md")).toBe("guide")
    expect(read(result.root, "docs/up.md")).toBe("guide")
    expect(read(result.root, "docs-dir/deep/x.md")).toBe("x")
    expect(fs.lstatSync(path.join(result.root, "guide-link.md")).isSymbolicLink()).toBe(true)
    for (const gone of ["escape-rel", "escape-abs", "docs/deep/through", "dangling.md", "vendor/lib"]) {
      expect([gone, fs.lstatSync(path.join(result.root, gone), { throwIfNoEntry: false }) !== undefined]).toEqual([gone, false])
    }
    const codes = (result.diagnostics ?? []).map((d) => `${d.code} ${d.path}`).sort()
    expect(codes).toEqual([
      "submodule-skipped vendor/lib",
      "symlink-dangling dangling.md",
      "symlink-escapes docs/deep/through",
      "symlink-escapes escape-abs",
      "symlink-escapes escape-rel"
    ])
  })

  it("skips tree entries named .git, .GIT or .. with a diagnostic and writes the rest", async () => {
    const h = harness()
    const repo = h.repo("evil", { "ok.md": "fine" })
    const hashTree = (input: Buffer) =>
      execFileSync("git", ["hash-object", "-w", "-t", "tree", "--literally", "--stdin"], { cwd: repo.dir, input, env: gitEnv(h.home) }).toString().trim()
    const okBlob = repo.git("rev-parse", "HEAD:ok.md")
    const entry = (mode: string, name: string, oid: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, "hex")])
    const inner = hashTree(entry("100644", "config", okBlob))
    const tree = hashTree(
      Buffer.concat([entry("100644", "..", okBlob), entry("40000", ".GIT", inner), entry("100644", ".git", okBlob), entry("100644", "ok.md", okBlob), entry("40000", "sub", inner)])
    )
    const commit = repo.git("commit-tree", tree, "-m", "crafted")
    repo.git("update-ref", "refs/heads/evil", commit)

    const result = await h.ok("evil", { url: repo.dir, ref: "evil" })
    expect(result.revision).toBe(commit)
    expect(fs.readdirSync(result.root).sort()).toEqual(["ok.md", "sub"])
    expect(read(result.root, "sub/config")).toBe("fine")
    expect((result.diagnostics ?? []).map((d) => `${d.code} ${d.path}`).sort()).toEqual(["unsafe-name ..", "unsafe-name .GIT", "unsafe-name .git"])
  })

  it("never writes to the user's repository: working tree and .git are byte-identical afterwards", async () => {
    const h = harness()
    const repo = h.repo("mine", { "a.md": "a", "b/c.md": "c" })
    repo.git("tag", "-a", "v1", "-m", "v1")
    repo.commit({ "a.md": "a2" })
    repo.git("gc", "-q") // packed objects and packed refs, the layout isomorphic-git reads with its pack cache
    repo.commit({ "d.md": "loose" })
    fs.writeFileSync(path.join(repo.dir, "dirty.md"), "not committed")
    const before = treeDigest(repo.dir)

    await h.ok("mine", { url: repo.dir })
    await h.ok("mine", { url: pathToFileURL(repo.dir).href, ref: "v1" })
    await h.ok("mine", { url: repo.dir, ref: repo.sha("v1").slice(0, 7) })
    await h.failed("mine", { url: repo.dir, ref: "nope" })
    expect(treeDigest(repo.dir)).toBe(before)
  })

  it("an unknown ref fails, naming branches and tags, and leaves no cache behind", async () => {
    const h = harness()
    const repo = h.repo("kb", { "a.md": "a" })
    repo.git("branch", "dev")
    repo.git("tag", "v1")
    const error = await h.failed("kb", { url: repo.dir, ref: "nope" })
    expect(error._tag).toBe("MaterializeFailed")
    expect(error.reason).toMatch(/ref 'nope' not found/)
    expect(error.reason).toContain("branches: dev, main")
    expect(error.reason).toContain("tags: v1")
    expect(error.hint).toMatch(/--ref/)
    expect(fs.existsSync(path.join(h.sourcesDir, "kb"))).toBe(false)
    expect((await h.failed("kb", { url: repo.dir, ref: "../../etc/passwd" })).reason).toMatch(/not a valid git ref name/)
  })

  it("a failed update keeps the installed revision and leaves no staging directory (R-BUN-2)", async () => {
    const h = harness()
    const repo = h.repo("kb", { "a.md": "a" })
    const v1 = await h.ok("kb", { url: repo.dir })
    const digest = treeDigest(v1.root)
    await h.failed("kb", { url: repo.dir, ref: "gone" })
    fs.renameSync(repo.dir, `${repo.dir}-moved`)
    const error = await h.failed("kb", { url: repo.dir })
    expect(error.reason).toBe(`the folder ${repo.dir} does not exist`)
    expect(h.cacheEntries("kb")).toEqual([v1.revision])
    expect(treeDigest(v1.root)).toBe(digest)
  })

  it("a folder that is not a git repository, or an empty one, fails with a clear reason", async () => {
    const h = harness()
    const plain = path.join(h.root, "plain")
    fs.mkdirSync(plain)
    fs.writeFileSync(path.join(plain, "a.md"), "a")
    const notRepo = await h.failed("plain", { url: plain })
    expect(notRepo.reason).toBe(`${plain} is not a git repository`)
    expect(notRepo.hint).toMatch(/without --git/)
    const empty = h.repo("empty")
    expect((await h.failed("empty", { url: empty.dir })).reason).toMatch(/no commits yet/)
    expect((await h.failed("ssh", { url: "ssh://git@example.com/x.git" })).reason).toMatch(/unsupported git URL/)
    expect((await h.failed("insecure", { url: "http://example.com/x.git" })).reason).toMatch(/plain http/)
    expect(fs.readdirSync(h.sourcesDir)).toEqual([])
  })
})

describe("git materializer: remote repositories over smart HTTP", () => {
  let served: string
  let home: string
  let server: GitHttpServer
  beforeAll(async () => {
    served = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-git-served-")))
    home = path.join(served, "home")
    fs.mkdirSync(home)
    server = await startGitHttpServer(path.join(served, "repos"), home)
  })
  afterAll(async () => {
    await server.stop()
    fs.rmSync(served, { recursive: true, force: true })
  })

  /** A working repository and its bare copy served at <name>.git; `push` publishes new commits. */
  const published = (name: string, files: Readonly<Record<string, string>>) => {
    const work = makeGitRepo(path.join(served, "work", name), home, files)
    const bare = path.join(served, "repos", `${name}.git`)
    git(served, home, "clone", "-q", "--bare", work.dir, bare)
    work.git("remote", "add", "origin", bare)
    return { work, url: server.url(`${name}.git`), push: () => work.git("push", "-q", "origin", "--all", "--follow-tags") }
  }

  it("clones HEAD into the cache gitdir, then an update fetches the new commit; progress is reported", async () => {
    const h = harness()
    const { work, url, push } = published("kb", { "README.md": "# remote\n", "docs/a.md": "alpha" })
    const v1 = await h.ok("kb", { url })
    expect(v1.revision).toBe(work.sha())
    expect(v1.locator).toBe(url)
    expect(read(v1.root, "docs/a.md")).toBe("alpha")
    expect(h.cacheEntries("kb")).toEqual([".git-cache", v1.revision].sort())
    expect(h.progress.some((p) => p.task === "clone kb")).toBe(true)
    const digest = treeDigest(v1.root)

    const v2sha = work.commit({ "docs/a.md": "alpha 2", "docs/b.md": "beta" })
    push()
    const v2 = await h.ok("kb", { url })
    expect(v2.revision).toBe(v2sha)
    expect([read(v2.root, "docs/a.md"), read(v2.root, "docs/b.md")]).toEqual(["alpha 2", "beta"])
    expect(treeDigest(v1.root)).toBe(digest)
  })

  it("fetches a branch, an annotated tag and a commit sha; an unknown ref lists the branches", async () => {
    const h = harness()
    const { work, url, push } = published("refs", { "v.md": "one" })
    const first = work.sha()
    work.git("tag", "-a", "v1", "-m", "release 1")
    work.git("checkout", "-q", "-b", "dev")
    const dev = work.commit({ "v.md": "dev" })
    work.git("checkout", "-q", "main")
    const middle = work.commit({ "v.md": "middle" })
    const main = work.commit({ "v.md": "two" })
    push()

    expect((await h.ok("refs", { url, ref: "dev" })).revision).toBe(dev)
    const tagged = await h.ok("refs", { url, ref: "v1" })
    expect([tagged.revision, read(tagged.root, "v.md")]).toEqual([first, "one"])
    expect((await h.ok("refs", { url })).revision).toBe(main)
    const bySha = await h.ok("refs", { url, ref: first.slice(0, 10) })
    expect([bySha.revision, bySha.root]).toEqual([first, tagged.root])
    // A full sha already in the cache needs no network at all.
    const requests = server.requests()
    expect((await h.ok("refs", { url, ref: first })).revision).toBe(first)
    expect(server.requests()).toBe(requests)

    // A commit no ref points at needs history: a shallow cache is replaced by a full fetch.
    const fresh = harness()
    await fresh.ok("refs", { url })
    expect(fs.existsSync(path.join(fresh.sourcesDir, "refs", ".git-cache", "shallow"))).toBe(true)
    const atMiddle = await fresh.ok("refs", { url, ref: middle.slice(0, 8) })
    expect([atMiddle.revision, read(atMiddle.root, "v.md")]).toEqual([middle, "middle"])
    expect(fs.existsSync(path.join(fresh.sourcesDir, "refs", ".git-cache", "shallow"))).toBe(false)
    expect((await fresh.failed("refs", { url, ref: "abcdef12" })).reason).toMatch(/ref 'abcdef12' not found — branches: dev, main/)

    const error = await h.failed("refs", { url, ref: "nope" })
    expect(error.reason).toMatch(/ref 'nope' not found/)
    expect(error.reason).toContain("branches: dev, main")
    expect(error.reason).toContain("tags: v1")
  })

  it("a damaged cache gitdir is rebuilt once instead of failing the update", async () => {
    const h = harness()
    const { work, url, push } = published("heal", { "a.md": "a", "big.md": "unchanged ".repeat(200) })
    await h.ok("heal", { url })
    const packDir = path.join(h.sourcesDir, "heal", ".git-cache", "objects", "pack")
    for (const pack of fs.readdirSync(packDir).filter((f) => f.endsWith(".pack"))) fs.truncateSync(path.join(packDir, pack), 40)
    const next = work.commit({ "a.md": "a2" })
    push()
    const result = await h.ok("heal", { url })
    expect(result.revision).toBe(next)
    expect(read(result.root, "big.md")).toContain("unchanged")
  })

  it("a missing repository, a non-git server and a stopped server fail with the URL named; the installed revision stays", async () => {
    const h = harness()
    const missing = await h.failed("missing", { url: server.url("nope.git") })
    expect(missing.reason).toBe(`repository not found at ${server.url("nope.git")} (HTTP 404)`)
    expect(fs.existsSync(path.join(h.sourcesDir, "missing"))).toBe(false)

    const site = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>docs</html>"))
    await new Promise<void>((done) => site.listen(0, "127.0.0.1", done))
    const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/docs`
    const notGit = await h.failed("site", { url: siteUrl })
    site.closeAllConnections()
    site.close()
    expect(notGit.reason).toBe(`${siteUrl} does not serve a git repository`)

    const { url } = published("down", { "a.md": "a" })
    const v1 = await h.ok("down", { url })
    const own = await startGitHttpServer(path.join(served, "repos"), home)
    const ownUrl = own.url("down.git")
    const installed = await h.ok("own", { url: ownUrl })
    await own.stop()
    const error = await h.failed("own", { url: ownUrl })
    expect(error._tag).toBe("MaterializeFailed")
    // ECONNRESET when a kept-alive socket to the stopped server is reused, ECONNREFUSED otherwise.
    expect(error.reason).toMatch(new RegExp(`^network error reaching ${ownUrl.replace(/[.]/g, "\\.")}: ECONN(REFUSED|RESET)$`))
    expect(error.hint).toMatch(/network/)
    expect(h.cacheEntries("own")).toEqual([".git-cache", installed.revision].sort())
    expect(fs.readFileSync(path.join(installed.root, "a.md"), "utf8")).toBe("a")
    expect(v1.revision).toBe(installed.revision)
  })
})
