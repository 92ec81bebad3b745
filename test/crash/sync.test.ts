import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { runCrashCli } from "../support/crashCli.js"
import { git } from "../support/gitRepo.js"
import { servedGitRepos, checkoutDigest as snapshot, type ServedGitRepos } from "../support/servedGitRepos.js"
import { bundleChild } from "../support/txHarness.js"

// `akm sync` killed mid fast-forward (issue 26, decision 0037), in a real child process (the
// test-only CLI entry point with crash points) against a real smart-HTTP git server on 127.0.0.1:
// killed after the engine wrote the tip's files but before the branch moved, the next `akm sync`
// finishes the move (branch at the tip, clean status); killed before the engine's commit mark,
// recovery puts the checkout back byte for byte and the next sync fast-forwards as usual.

let repos: ServedGitRepos
let root: string
let gitHome: string
let entry: Awaited<ReturnType<typeof bundleChild>>
const workspaces: Array<Workspace> = []
let counter = 0

beforeAll(async () => {
  repos = await servedGitRepos("akm-sync-crash-")
  ;({ root, home: gitHome } = repos)
  entry = await bundleChild("cliWithCrashPoints")
}, 180_000)

afterAll(async () => {
  entry.dispose()
  for (const ws of workspaces) ws.cleanup()
  await repos.stop()
})

const note = (title: string, body: string) => `---\ndescription: ${title}\n---\n# ${title}\n\n${body}\n`

/** A shared repository served over http, a teammate's tip pushed on it, and a member's checkout mounted writable as bundle `team`. */
const scenario = async () => {
  const name = `team${++counter}`
  const { bare, url } = repos.shared(name, { "knowledge/intro.md": note("Intro", "Where the team keeps its knowledge."), "knowledge/old.md": note("Old", "To be removed.") })
  const ws = makeWorkspace()
  workspaces.push(ws)
  const checkout = repos.checkout(bare, path.join(ws.root, "checkout"), url)
  for (const args of [["init"], ["config", "set", "website.allowHosts", '["127.0.0.1"]'], ["bundle", "add", checkout, "--name", "team", "--adapter", "akm"], ["config", "set", "bundles.team.git.commit", "true"]]) {
    const r = await ws.run(args)
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0)
  }
  // A teammate adds one file, edits one and deletes one.
  const mate = path.join(root, "mates", name)
  git(root, gitHome, "clone", "-q", bare, mate)
  fs.writeFileSync(path.join(mate, "knowledge/deploy.md"), note("Deploy", "The xylophone rollout procedure."))
  fs.writeFileSync(path.join(mate, "knowledge/intro.md"), note("Intro", "Where the team keeps its knowledge, and how."))
  fs.rmSync(path.join(mate, "knowledge/old.md"))
  git(mate, gitHome, "add", "-A")
  git(mate, gitHome, "commit", "-q", "-m", "deploy guide")
  git(mate, gitHome, "push", "-q", "origin", "HEAD:main")
  const tip = git(mate, gitHome, "rev-parse", "HEAD")
  const g = (...args: ReadonlyArray<string>) => git(checkout, gitHome, ...args)
  return { ws, checkout, g, tip, start: g("rev-parse", "HEAD") }
}

const syncArgs = ["sync", "team", "--allow-insecure", "--format", "json"]

const intents = (ws: Workspace) => (fs.existsSync(path.join(ws.dataDir, "sync")) ? fs.readdirSync(path.join(ws.dataDir, "sync")).filter((n) => n.endsWith(".intent.json")) : [])

describe("akm sync killed mid fast-forward", () => {
  it("killed after the files were written and before the branch moved: the next akm sync finishes the move — branch at the tip, clean status, index rows", async () => {
    const { ws, checkout, g, tip, start } = await scenario()
    const crashed = await runCrashCli(entry.script, ws, syncArgs, "sync-before-advance")
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL")
    expect(crashed.crashedAt).toBe("sync-before-advance#1")
    // The gap: files at the tip, the branch behind, `git status` showing the tip's changes as the user's.
    expect(fs.readFileSync(path.join(checkout, "knowledge/deploy.md"), "utf8")).toContain("xylophone")
    expect(fs.existsSync(path.join(checkout, "knowledge/old.md"))).toBe(false)
    expect(g("rev-parse", "HEAD")).toBe(start)
    expect(g("status", "--porcelain")).not.toBe("")
    expect(intents(ws)).toHaveLength(1)

    // --dry-run says the move is pending and changes nothing.
    const dry = await ws.run([...syncArgs, "--dry-run"], { env: { AKM_GIT_TOKEN: "" } })
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.json().bundles[0]).toMatchObject({ action: "fast-forward", to: tip })
    expect(dry.json().bundles[0].warnings.join("\n")).toContain("was interrupted")
    expect(g("rev-parse", "HEAD")).toBe(start)
    expect(intents(ws)).toHaveLength(1)

    // A file edited after the crash: refused with its path, nothing reset, the record kept.
    const deploy = path.join(checkout, "knowledge/deploy.md")
    const written = fs.readFileSync(deploy, "utf8")
    fs.writeFileSync(deploy, `${written}My own line.\n`)
    const refused = await ws.run(syncArgs, { env: { AKM_GIT_TOKEN: "" } })
    expect(refused.code).toBe(1)
    expect(refused.json().bundles[0]).toMatchObject({ action: "refused", details: ["knowledge/deploy.md"], reason: expect.stringContaining("interrupted") })
    expect(fs.readFileSync(deploy, "utf8")).toBe(`${written}My own line.\n`)
    expect(g("rev-parse", "HEAD")).toBe(start)
    expect(intents(ws)).toHaveLength(1)
    fs.writeFileSync(deploy, written)

    const next = await ws.run(syncArgs, { env: { AKM_GIT_TOKEN: "" } })
    expect(next.code, next.stderr).toBe(0)
    const synced = next.json().bundles[0]
    expect(synced.warnings.join("\n")).toContain(`finished an interrupted sync: branch 'main' moved from ${start.slice(0, 12)} to ${tip.slice(0, 12)}`)
    expect(g("rev-parse", "HEAD")).toBe(tip)
    expect(g("status", "--porcelain")).toBe("")
    expect(g("rev-parse", "refs/remotes/origin/main")).toBe(tip)
    expect(intents(ws)).toEqual([])
    // The index rows followed the files.
    const found = await ws.run(["search", "xylophone", "--format", "json"])
    expect(found.code, found.stderr).toBe(0)
    expect(JSON.stringify(found.json())).toContain("team//knowledge/deploy")
    // And the checkout syncs on as usual.
    const again = await ws.run(syncArgs, { env: { AKM_GIT_TOKEN: "" } })
    expect(again.code, again.stderr).toBe(0)
    expect(again.json().bundles[0]).toMatchObject({ action: "up-to-date", warnings: [] })
  }, 180_000)

  it("killed before the engine's commit mark: recovery leaves the checkout byte-identical to before, and the next sync fast-forwards", async () => {
    const { ws, checkout, g, tip, start } = await scenario()
    const before = snapshot(checkout)
    const crashed = await runCrashCli(entry.script, ws, syncArgs, "after-writes")
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL")
    expect(crashed.crashedAt).toBe("after-writes#1")
    const journals = fs.readdirSync(path.join(ws.dataDir, "txn")).filter((n) => n.startsWith("sync-"))
    expect(journals).toHaveLength(1)

    // The engine's recovery, which every writing command runs first (here `lint --fix`, with nothing to fix), rolls the set back.
    const recovered = await ws.run(["lint", "--bundle", "team", "--fix", "--format", "json"])
    expect(recovered.code, recovered.stderr).toBe(0)
    expect(fs.readdirSync(path.join(ws.dataDir, "txn")).filter((n) => n.startsWith("sync-"))).toEqual([])
    expect(snapshot(checkout)).toBe(before)
    expect(g("rev-parse", "HEAD")).toBe(start)
    expect(g("status", "--porcelain")).toBe("")

    // The record of the move the crashed sync meant to make is dropped: the files say it never happened.
    const next = await ws.run(syncArgs, { env: { AKM_GIT_TOKEN: "" } })
    expect(next.code, next.stderr).toBe(0)
    expect(next.json().bundles[0]).toMatchObject({ action: "fast-forward", to: tip })
    expect(g("rev-parse", "HEAD")).toBe(tip)
    expect(g("status", "--porcelain")).toBe("")
    expect(intents(ws)).toEqual([])
  }, 180_000)

  it("killed before the commit mark, then a plain akm sync: the engine rolls back first and the sync goes on from a clean checkout", async () => {
    const { ws, g, tip } = await scenario()
    const crashed = await runCrashCli(entry.script, ws, syncArgs, "write#2")
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL")
    const next = await ws.run(syncArgs, { env: { AKM_GIT_TOKEN: "" } })
    expect(next.code, next.stderr).toBe(0)
    expect(next.json().bundles[0]).toMatchObject({ action: "fast-forward", to: tip })
    expect(g("rev-parse", "HEAD")).toBe(tip)
    expect(g("status", "--porcelain")).toBe("")
  }, 180_000)
})
