import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Either, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WorkspaceConfigLive } from "../../src/layers/fs/WorkspaceConfigFile.js"
import { GitSyncIsomorphic } from "../../src/layers/git/GitSyncIsomorphic.js"
import { GitSync, type RemoteAccess, type SyncPlan } from "../../src/services/GitSync.js"
import { git } from "../support/gitRepo.js"
import { servedGitRepos, checkoutDigest as digest, type ServedGitRepos } from "../support/servedGitRepos.js"

// The GitSync service's contract on its isomorphic-git layer (issue 26 item 1), against a real
// smart-HTTP server on 127.0.0.1: open, fetch into the cache (never the checkout), every plan kind,
// advance and push. Files are written by the test where the transaction engine would write them.

let repos: ServedGitRepos
let root: string
let home: string
let layer: Layer.Layer<GitSync>
let counter = 0
const access: RemoteAccess = { allowInsecure: true, token: undefined }

beforeAll(async () => {
  repos = await servedGitRepos("akm-gitsync-")
  ;({ root, home } = repos)
  fs.mkdirSync(path.join(root, "config"), { recursive: true })
  fs.writeFileSync(path.join(root, "config", "config.yaml"), "website:\n  allowHosts: [\"127.0.0.1\"]\n")
  layer = GitSyncIsomorphic.pipe(Layer.provide(WorkspaceConfigLive({ configDir: path.join(root, "config"), dataDir: path.join(root, "data"), cacheDir: path.join(root, "cache") })))
})

afterAll(async () => {
  await repos.stop()
})

const run = <A, E>(f: (sync: GitSync["Type"]) => Effect.Effect<A, E>) => Effect.runPromise(Effect.either(Effect.flatMap(GitSync, f).pipe(Effect.provide(layer))))
const ok = async <A, E>(f: (sync: GitSync["Type"]) => Effect.Effect<A, E>): Promise<A> => {
  const result = await run(f)
  if (Either.isLeft(result)) throw new Error(`expected success: ${JSON.stringify(result.left)}`)
  return result.right
}

/** A shared repository served over http, a checkout of it (remote = the http URL) and a teammate who pushes to the bare repository. */
const setup = (files: Readonly<Record<string, string>> = { "kb/a.md": "a1\n", "kb/b.md": "b1\n", "README.md": "top\n" }) => {
  const name = `r${++counter}`
  const { bare, url } = repos.shared(name, files)
  const checkout = repos.checkout(bare, path.join(root, "checkouts", name), url)
  const mate = path.join(root, "mates", name)
  git(root, home, "clone", "-q", bare, mate)
  const push = (changes: Readonly<Record<string, string | null>>, message = "teammate") => {
    for (const [rel, text] of Object.entries(changes)) {
      if (text === null) fs.rmSync(path.join(mate, rel))
      else {
        fs.mkdirSync(path.dirname(path.join(mate, rel)), { recursive: true })
        fs.writeFileSync(path.join(mate, rel), text)
      }
    }
    git(mate, home, "add", "-A")
    git(mate, home, "commit", "-q", "-m", message)
    git(mate, home, "push", "-q", "origin", "HEAD:main")
    return git(mate, home, "rev-parse", "HEAD")
  }
  const commit = (changes: Readonly<Record<string, string>>, message: string) => {
    for (const [rel, text] of Object.entries(changes)) fs.writeFileSync(path.join(checkout, rel), text)
    git(checkout, home, "add", "-A")
    git(checkout, home, "commit", "-q", "-m", message)
    return git(checkout, home, "rev-parse", "HEAD")
  }
  return { bare, checkout, push, commit, g: (...args: ReadonlyArray<string>) => git(checkout, home, ...args) }
}

const planOf = (dir: string) => ok((s) => Effect.gen(function* () {
  const checkout = yield* s.open(dir)
  const tip = yield* s.fetch(checkout, access)
  return { checkout, tip, plan: yield* s.plan(checkout, tip) }
}))

const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8"))

const kind = <K extends SyncPlan["kind"]>(plan: SyncPlan, k: K): Extract<SyncPlan, { kind: K }> => {
  expect(plan.kind).toBe(k)
  return plan as Extract<SyncPlan, { kind: K }>
}

describe("GitSync (isomorphic-git)", () => {
  it("open: the branch, its upstream and the bundle folder inside the repository", async () => {
    const r = setup()
    const checkout = await ok((s) => s.open(path.join(r.checkout, "kb")))
    expect(checkout).toMatchObject({ root: r.checkout, prefix: "kb", branch: "main", head: r.g("rev-parse", "HEAD"), remote: "origin", remoteRef: "refs/heads/main" })
  })

  it("open refuses ssh remotes (with the https hint), a checkout without a remote, a detached HEAD and a folder outside git", async () => {
    const r = setup()
    r.g("remote", "set-url", "origin", "git@example.com:team/kb.git")
    const ssh = await run((s) => s.open(r.checkout))
    expect(Either.isLeft(ssh) && ssh.left.hint).toMatch(/https/)
    r.g("remote", "set-url", "origin", "ssh://git@example.com/team/kb.git")
    expect(Either.isLeft(await run((s) => s.open(r.checkout)))).toBe(true)
    r.g("remote", "remove", "origin")
    const none = await run((s) => s.open(r.checkout))
    expect(Either.isLeft(none) && none.left.reason).toMatch(/no remote/)
    r.g("checkout", "-q", "--detach")
    const detached = await run((s) => s.open(r.checkout))
    expect(Either.isLeft(detached) && detached.left.reason).toMatch(/detached/)
    const plain = path.join(root, "plain")
    fs.mkdirSync(plain, { recursive: true })
    const outside = await run((s) => s.open(plain))
    expect(Either.isLeft(outside) && outside.left.reason).toMatch(/not inside a git checkout/)
  })

  it("fetch goes into akm's cache: the checkout is byte-identical after fetch and plan", async () => {
    const r = setup()
    r.push({ "kb/c.md": "c1\n" })
    const before = digest(r.checkout)
    const { plan } = await planOf(r.checkout)
    expect(plan.kind).toBe("fast-forward")
    expect(digest(r.checkout)).toBe(before)
  })

  it("fast-forward: the moves from HEAD's bytes to the tip's (create, update, delete, executable bit); advance moves the branch and index", async () => {
    const r = setup()
    const from = r.g("rev-parse", "HEAD")
    r.push({ "kb/a.md": "a2\n", "kb/b.md": null, "kb/run.sh": "#!/bin/sh\n" })
    fs.chmodSync(path.join(root, "mates", path.basename(r.checkout), "kb/run.sh"), 0o755)
    const tip = r.push({ "kb/run.sh": "#!/bin/sh\necho\n" }, "exec")
    const { checkout, plan } = await planOf(r.checkout)
    const ff = kind(plan, "fast-forward")
    expect(ff.incoming).toBe(2)
    expect(ff.changes.map((c) => [c.path, text(c.before), text(c.after), c.executable])).toEqual([
      ["kb/a.md", "a1\n", "a2\n", false],
      ["kb/b.md", "b1\n", undefined, false],
      ["kb/run.sh", undefined, "#!/bin/sh\necho\n", true]
    ])
    // Where the engine would write: the files first, then advance.
    fs.writeFileSync(path.join(r.checkout, "kb/a.md"), "a2\n")
    fs.rmSync(path.join(r.checkout, "kb/b.md"))
    fs.writeFileSync(path.join(r.checkout, "kb/run.sh"), "#!/bin/sh\necho\n", { mode: 0o755 })
    await ok((s) => s.advance(checkout, from, tip))
    expect(r.g("rev-parse", "HEAD")).toBe(tip)
    expect(r.g("symbolic-ref", "HEAD")).toBe("refs/heads/main")
    expect(r.g("status", "--porcelain")).toBe("")
    expect(r.g("rev-parse", "refs/remotes/origin/main")).toBe(tip)
    expect(r.g("fsck", "--no-progress")).toBe("")
  })

  it("advance refuses when the branch moved meanwhile", async () => {
    const r = setup()
    r.push({ "kb/c.md": "c1\n" })
    const { checkout, tip } = await planOf(r.checkout)
    r.commit({ "kb/a.md": "mine\n" }, "mine")
    const moved = await run((s) => s.advance(checkout, checkout.head, tip))
    expect(Either.isLeft(moved) && moved.left.reason).toMatch(/moved/)
  })

  it("the intent record of a branch move survives until settled; workTree tells where the files stand; finish completes a half-done move (decision 0037)", async () => {
    const r = setup()
    const from = r.g("rev-parse", "HEAD")
    const tip = r.push({ "kb/a.md": "a2\n", "kb/b.md": null, "kb/c.md": "c1\n" })
    const { checkout } = await planOf(r.checkout)
    expect(await ok((s) => s.intent(checkout))).toBeUndefined()
    const intent = { branch: "main", from, to: tip, transaction: "sync-test-ff" }
    await ok((s) => s.intend(checkout, intent))
    // Another process (the next akm) reads it back.
    expect(await ok((s) => Effect.flatMap(s.open(r.checkout), (again) => s.intent(again)))).toEqual(intent)
    expect(await ok((s) => s.workTree(checkout, from, tip))).toEqual({ at: "from" })
    // Where the engine would write, then a crash: files at the tip, the branch behind.
    fs.writeFileSync(path.join(r.checkout, "kb/a.md"), "a2\n")
    fs.rmSync(path.join(r.checkout, "kb/b.md"))
    expect(await ok((s) => s.workTree(checkout, from, tip))).toEqual({ at: "neither", paths: ["kb/c.md"] })
    fs.writeFileSync(path.join(r.checkout, "kb/c.md"), "c1\n")
    expect(await ok((s) => s.workTree(checkout, from, tip))).toEqual({ at: "to" })
    expect(r.g("status", "--porcelain")).not.toBe("")
    await ok((s) => s.finish(checkout, from, tip))
    expect(r.g("rev-parse", "HEAD")).toBe(tip)
    expect(r.g("status", "--porcelain")).toBe("")
    // A move already made (the crash came after the ref moved): finish only brings the index along, and is idempotent.
    await ok((s) => s.finish(checkout, from, tip))
    expect(r.g("status", "--porcelain")).toBe("")
    await ok((s) => s.settle(checkout))
    expect(await ok((s) => s.intent(checkout))).toBeUndefined()
    // A damaged record is refused with where it is, not ignored.
    await ok((s) => s.intend(checkout, intent))
    const dir = path.join(root, "data", "sync")
    const file = fs.readdirSync(dir).find((n) => n.endsWith(".intent.json"))!
    fs.writeFileSync(path.join(dir, file), "{ not json")
    const damaged = await run((s) => s.intent(checkout))
    expect(Either.isLeft(damaged) && damaged.left.reason).toMatch(/damaged/)
    await ok((s) => s.settle(checkout))
  })

  it("a bundle that is a subfolder: remote changes outside it are reported, not planned", async () => {
    const r = setup()
    r.push({ "README.md": "changed\n", "kb/a.md": "a2\n" })
    const { plan } = await planOf(path.join(r.checkout, "kb"))
    expect(kind(plan, "outside").paths).toEqual(["README.md"])
  })

  it("the user's own commit with the remote moved on: diverged, naming the commit", async () => {
    const r = setup()
    const mine = r.commit({ "kb/a.md": "mine\n" }, "my work")
    r.push({ "kb/c.md": "c1\n" })
    const { plan } = await planOf(r.checkout)
    expect(kind(plan, "diverged").foreign).toEqual([{ sha: mine, subject: "my work" }])
  })

  it("akm's own commits (trailer) with nothing new on the remote: ahead; pushed on request", async () => {
    const r = setup()
    const own = r.commit({ "kb/a.md": "ours\n" }, "our change\n\nAkm-Transaction: t-1")
    const { checkout, plan } = await planOf(r.checkout)
    const ahead = kind(plan, "ahead")
    expect(ahead.own.map((c) => [c.sha, c.subject, c.message])).toEqual([[own, "our change", "our change"]])
    expect(ahead.foreign).toEqual([])
    expect(await ok((s) => s.push(checkout, access))).toBe(own)
    expect(git(root, home, "--git-dir", r.bare, "rev-parse", "main")).toBe(own)
  })

  it("akm's own commits with the remote moved on: replay, each change checked against the tip; a changed before-file is a conflict", async () => {
    const r = setup()
    r.commit({ "kb/a.md": "ours\n" }, "our a\n\nAkm-Transaction: t-1")
    r.commit({ "kb/new.md": "new\n" }, "our new\n\nAkm-Transaction: t-2")
    r.push({ "kb/b.md": "b2\n" })
    const { plan } = await planOf(r.checkout)
    const replay = kind(plan, "replay")
    expect(replay.changes.map((c) => [c.path, text(c.before), text(c.after)])).toEqual([
      ["kb/a.md", "ours\n", "a1\n"],
      ["kb/b.md", "b1\n", "b2\n"],
      ["kb/new.md", "new\n", undefined]
    ])
    expect(replay.own.map((c) => [c.subject, c.changes.map((m) => [m.path, text(m.before), text(m.after)])])).toEqual([
      ["our a", [["kb/a.md", "a1\n", "ours\n"]]],
      ["our new", [["kb/new.md", undefined, "new\n"]]]
    ])

    const conflicting = setup()
    conflicting.commit({ "kb/a.md": "ours\n" }, "our a\n\nAkm-Transaction: t-1")
    conflicting.push({ "kb/a.md": "theirs\n" })
    expect(kind((await planOf(conflicting.checkout)).plan, "conflict").paths).toEqual(["kb/a.md"])
  })
})

