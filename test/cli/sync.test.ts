import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { startGitHttpServer, type GitHttpServer } from "../support/gitHttpServer.js"
import { git } from "../support/gitRepo.js"
import { servedGitRepos, checkoutDigest as snapshot, type ServedGitRepos } from "../support/servedGitRepos.js"

// akm sync (issue 26 item 1, docs/decisions/0029-sync.md) against a real smart-HTTP git server
// (git http-backend behind node:http on 127.0.0.1): fast-forward, replay of akm's own commits,
// push, refusals that leave the checkout byte-identical, auth failure with the token redacted.

const TOKEN = "tok-3f9c1d7e5b2a4c68"
let repos: ServedGitRepos
let root: string
let gitHome: string
let guarded: GitHttpServer
const workspaces: Array<Workspace> = []
let counter = 0

beforeAll(async () => {
  repos = await servedGitRepos("akm-sync-")
  ;({ root, home: gitHome } = repos)
  guarded = await startGitHttpServer(repos.served, gitHome, { token: TOKEN })
})

afterAll(async () => {
  await guarded.stop()
  for (const ws of workspaces) ws.cleanup()
  await repos.stop()
})

const note = (title: string, body: string) => `---\ndescription: ${title}\n---\n# ${title}\n\n${body}\n`

/** A fresh shared repository (bare, served over http) with a first commit. */
const sharedRepo = () => {
  const name = `team${++counter}`
  const { bare, url } = repos.shared(name, { "knowledge/intro.md": note("Intro", "Where the team keeps its knowledge.") })
  return { name, bare, url, guardedUrl: guarded.url(`${name}.git`) }
}

/** A teammate's plain git clone that pushes straight to the bare repository. */
const teammate = (bare: string) => {
  const dir = path.join(root, "mates", `m${++counter}`)
  git(root, gitHome, "clone", "-q", bare, dir)
  const run = (...args: ReadonlyArray<string>) => git(dir, gitHome, ...args)
  return {
    push: (files: Readonly<Record<string, string>>, message: string) => {
      run("pull", "-q", "--ff-only")
      for (const [rel, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
        fs.writeFileSync(path.join(dir, rel), text)
      }
      run("add", "-A")
      run("commit", "-q", "-m", message)
      run("push", "-q", "origin", "HEAD:main")
      return run("rev-parse", "HEAD")
    }
  }
}

/** A workspace whose writable bundle `team` is a checkout of the shared repository, with git.commit on. */
const member = async (repo: { bare: string; url: string }) => {
  const ws = makeWorkspace()
  workspaces.push(ws)
  const checkout = repos.checkout(repo.bare, path.join(ws.root, "checkout"), repo.url)
  git(checkout, gitHome, "config", "user.name", "Member")
  git(checkout, gitHome, "config", "user.email", "member@example.com")
  for (const args of [["init"], ["config", "set", "website.allowHosts", '["127.0.0.1"]'], ["bundle", "add", checkout, "--name", "team", "--adapter", "akm"], ["config", "set", "bundles.team.git.commit", "true"]]) {
    const r = await ws.run(args)
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0)
  }
  const g = (...args: ReadonlyArray<string>) => git(checkout, gitHome, ...args)
  const accept = async (file: string, text: string, title: string) => {
    const draft = path.join(ws.root, "drafts", `${++counter}.md`)
    fs.mkdirSync(path.dirname(draft), { recursive: true })
    fs.writeFileSync(draft, text)
    const made = await ws.run(["proposal", "new", "--bundle", "team", "--file", `${file}=@${draft}`, "--title", title, "--format", "json"])
    expect(made.code, made.stderr).toBe(0)
    const accepted = await ws.run(["proposal", "accept", made.json().id, "-y", "--format", "json"])
    expect(accepted.code, accepted.stderr).toBe(0)
  }
  const sync = (...args: ReadonlyArray<string>) => ws.run(["sync", ...args, "--allow-insecure", "--format", "json"], { env: { AKM_GIT_TOKEN: "" } })
  return { ws, checkout, g, accept, sync }
}

const bundleOf = (r: { json: () => any }) => r.json().bundles[0] // eslint-disable-line @typescript-eslint/no-explicit-any

describe("akm sync", () => {
  it("fetches the upstream branch over http (--allow-insecure) and fast-forwards a clean checkout: files, branch, index and the index rows follow", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    const tip = teammate(repo.bare).push({ "knowledge/deploy.md": note("Deploy", "The xylophone rollout procedure.") }, "deploy guide")
    const r = await me.sync("team")
    expect(r.code, r.stderr).toBe(0)
    expect(bundleOf(r)).toMatchObject({ bundle: "team", action: "fast-forward", upstream: "origin/main", to: tip, incoming: 1, changed: ["knowledge/deploy.md"] })
    expect(me.g("rev-parse", "HEAD")).toBe(tip)
    expect(me.g("status", "--porcelain")).toBe("")
    expect(fs.readFileSync(path.join(me.checkout, "knowledge/deploy.md"), "utf8")).toContain("xylophone")
    const found = await me.ws.run(["search", "xylophone", "--format", "json"])
    expect((found.json().hits as Array<{ path: string }>).map((h) => h.path)).toContain(path.join(me.checkout, "knowledge", "deploy.md"))
    const again = await me.sync("team")
    expect(bundleOf(again)).toMatchObject({ action: "up-to-date", to: tip })
  }, 120_000)

  it("--dry-run says what would happen and writes nothing", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    const tip = teammate(repo.bare).push({ "knowledge/new.md": note("New", "Fresh.") }, "new note")
    const before = snapshot(me.checkout)
    const r = await me.sync("team", "--dry-run")
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ dryRun: true, bundles: [{ action: "fast-forward", to: tip, changed: ["knowledge/new.md"] }] })
    expect(snapshot(me.checkout)).toBe(before)
    const text = await me.ws.run(["sync", "--dry-run", "--allow-insecure", "--format", "text"])
    expect(text.stdout).toContain("would fast-forward")
  }, 120_000)

  it("refuses when the user's own commits diverged from the remote, and leaves the checkout byte-identical (files, refs, index)", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    fs.writeFileSync(path.join(me.checkout, "knowledge/mine.md"), note("Mine", "My own work."))
    me.g("add", "-A")
    me.g("commit", "-q", "-m", "my own commit")
    teammate(repo.bare).push({ "knowledge/theirs.md": note("Theirs", "Their work.") }, "their commit")
    const before = snapshot(me.checkout)
    const r = await me.sync("team")
    expect(r.code).toBe(1)
    const b = bundleOf(r)
    expect(b).toMatchObject({ action: "refused", incoming: 1 })
    expect(b.reason).toMatch(/not on it/)
    expect(b.hint).toMatch(/never merges or rebases/)
    expect(b.details.join("\n")).toContain("my own commit")
    expect(snapshot(me.checkout)).toBe(before)
  }, 120_000)

  it("refuses a checkout with uncommitted changes before moving anything", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    teammate(repo.bare).push({ "knowledge/theirs.md": note("Theirs", "Their work.") }, "their commit")
    fs.writeFileSync(path.join(me.checkout, "scratch.txt"), "work in progress\n")
    const before = snapshot(me.checkout)
    const r = await me.sync("team")
    expect(r.code).toBe(1)
    expect(bundleOf(r)).toMatchObject({ action: "refused", details: ["scratch.txt (untracked)"] })
    expect(bundleOf(r).hint).toMatch(/never stashes or resets/)
    expect(snapshot(me.checkout)).toBe(before)
  }, 120_000)

  it("replays akm's own commits (marked by their trailer) on the fetched tip through the transaction engine, then --push shares them", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    await me.accept("knowledge/ours.md", note("Ours", "The accepted note."), "add our note")
    const own = me.g("rev-parse", "HEAD")
    expect(me.g("log", "-1", "--format=%B")).toMatch(/^Akm-Transaction: \S+$/m)
    const tip = teammate(repo.bare).push({ "knowledge/theirs.md": note("Theirs", "Their work.") }, "their commit")
    const r = await me.sync("team", "--push")
    expect(r.code, r.stderr).toBe(0)
    const b = bundleOf(r)
    expect(b).toMatchObject({ action: "replay", incoming: 1, commits: [{ sha: own, subject: "add our note" }] })
    const head = me.g("rev-parse", "HEAD")
    expect(b.commits[0].replayedAs).toBe(head)
    expect(b.pushed).toBe(head)
    expect(me.g("rev-parse", "HEAD~1")).toBe(tip)
    expect(me.g("log", "-1", "--format=%B")).toMatch(/^add our note\n\nAkm-Transaction: \S+\n?$/)
    expect(me.g("status", "--porcelain")).toBe("")
    expect(git(root, gitHome, "--git-dir", repo.bare, "rev-parse", "main")).toBe(head)
    expect(fs.readFileSync(path.join(me.checkout, "knowledge/theirs.md"), "utf8")).toContain("Their work.")
    expect(fs.readFileSync(path.join(me.checkout, "knowledge/ours.md"), "utf8")).toContain("The accepted note.")
  }, 180_000)

  it("a replay whose before-bytes the remote changed is a conflict: the paths are reported and the checkout stays as it was", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    await me.accept("knowledge/intro.md", note("Intro", "Our edit of the intro."), "edit intro")
    teammate(repo.bare).push({ "knowledge/intro.md": note("Intro", "Their edit of the intro.") }, "their intro")
    const before = snapshot(me.checkout)
    const r = await me.sync("team")
    expect(r.code).toBe(1)
    expect(bundleOf(r)).toMatchObject({ action: "refused", details: ["knowledge/intro.md"] })
    expect(snapshot(me.checkout)).toBe(before)
  }, 180_000)

  it("--push with nothing new on the remote pushes akm's commits; without --push it says they wait", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    await me.accept("knowledge/ours.md", note("Ours", "Pushed note."), "add pushed note")
    const head = me.g("rev-parse", "HEAD")
    const waiting = await me.sync("team")
    expect(bundleOf(waiting)).toMatchObject({ action: "none", commits: [{ sha: head }] })
    expect(bundleOf(waiting).warnings.join("\n")).toContain("akm sync --push")
    const r = await me.sync("team", "--push")
    expect(r.code, r.stderr).toBe(0)
    expect(bundleOf(r)).toMatchObject({ action: "push", pushed: head })
    expect(git(root, gitHome, "--git-dir", repo.bare, "rev-parse", "main")).toBe(head)
  }, 180_000)

  it("an auth failure (HTTP 401) is reported without the token; the right token from AKM_GIT_TOKEN works", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    me.g("remote", "set-url", "origin", repo.guardedUrl)
    const wrong = "wrong-9d8c7b6a5f4e3d2c"
    const refused = await me.ws.run(["sync", "team", "--allow-insecure", "--format", "json"], { env: { AKM_GIT_TOKEN: wrong } })
    expect(refused.code).toBe(1)
    expect(bundleOf(refused).reason).toMatch(/HTTP 401/)
    expect(bundleOf(refused).hint).toMatch(/AKM_GIT_TOKEN/)
    expect(refused.stdout + refused.stderr).not.toContain(wrong)
    const ok = await me.ws.run(["sync", "team", "--allow-insecure", "--format", "json"], { env: { AKM_GIT_TOKEN: TOKEN } })
    expect(ok.code, ok.stderr).toBe(0)
    expect(bundleOf(ok)).toMatchObject({ action: "up-to-date" })
    expect(ok.stdout + ok.stderr).not.toContain(TOKEN)
  }, 120_000)

  it("refuses ssh remotes with the https hint, plain http without --allow-insecure, and read-only git bundles (bundle update)", async () => {
    const repo = sharedRepo()
    const me = await member(repo)
    me.g("remote", "set-url", "origin", "git@example.com:team/kb.git")
    const ssh = await me.sync("team")
    expect(ssh.code).toBe(1)
    expect(bundleOf(ssh).reason).toMatch(/ssh URL/)
    expect(bundleOf(ssh).hint).toMatch(/https/)
    me.g("remote", "set-url", "origin", repo.url)
    // Without the host in website.allowHosts: plain http needs --allow-insecure, and the address policy still refuses 127.0.0.1.
    expect((await me.ws.run(["config", "set", "website.allowHosts", "[]"])).code).toBe(0)
    const insecure = await me.ws.run(["sync", "team", "--format", "json"])
    expect(insecure.code).toBe(1)
    expect(`${bundleOf(insecure).reason} ${bundleOf(insecure).hint}`).toMatch(/allow-insecure/)
    const policy = await me.sync("team")
    expect(policy.code).toBe(1)
    expect(bundleOf(policy).hint).toContain("website.allowHosts")
    const added = await me.ws.run(["bundle", "add", `file://${repo.bare}`, "--name", "pinned"])
    expect(added.code, added.stderr).toBe(0)
    const pinned = await me.sync("pinned")
    expect(pinned.code).toBe(1)
    expect(bundleOf(pinned).hint).toContain("akm bundle update pinned")
  }, 120_000)

  it("done when: two workspaces sharing one remote see each other's accepted proposals after `akm sync --push` on one and `akm sync` on the other", async () => {
    const repo = sharedRepo()
    const alice = await member(repo)
    const bob = await member(repo)
    await alice.accept("knowledge/alice.md", note("Alice", "The quasar checklist from Alice."), "alice's note")
    expect((await alice.sync("--push")).code).toBe(0)
    const pulled = await bob.sync()
    expect(pulled.code, pulled.stderr).toBe(0)
    expect(bundleOf(pulled)).toMatchObject({ action: "fast-forward", changed: ["knowledge/alice.md"] })
    const found = await bob.ws.run(["search", "quasar", "--format", "json"])
    expect((found.json().hits as Array<{ path: string }>).map((h) => h.path)).toContain(path.join(bob.checkout, "knowledge", "alice.md"))

    await bob.accept("knowledge/bob.md", note("Bob", "The nebula runbook from Bob."), "bob's note")
    expect((await bob.sync("--push")).code).toBe(0)
    const back = await alice.sync()
    expect(back.code, back.stderr).toBe(0)
    expect(fs.readFileSync(path.join(alice.checkout, "knowledge/bob.md"), "utf8")).toContain("nebula")
    expect(alice.g("rev-parse", "HEAD")).toBe(bob.g("rev-parse", "HEAD"))
    const seen = await alice.ws.run(["search", "nebula", "--format", "json"])
    expect((seen.json().hits as Array<{ path: string }>).map((h) => h.path)).toContain(path.join(alice.checkout, "knowledge", "bob.md"))
  }, 240_000)
})
