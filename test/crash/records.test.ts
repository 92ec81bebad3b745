import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { putBlob } from "../../src/layers/fs/transaction/BlobStore.js"
import { writeJournal, type Journal } from "../../src/layers/fs/transaction/Journal.js"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { runCrashCli } from "../support/crashCli.js"
import { bundleChild, snapshot } from "../support/txHarness.js"

/**
 * Issue 13 item 2, through real child processes: the test entry point
 * (cliWithCrashPoints) is SIGKILLed at an engine phase, the shipped CLI
 * carries on. A proposal's recorded status always matches the bytes: a
 * crashed accept the next command finishes is accepted (and revertible);
 * after-bytes without the proposal's own journal are stale; a damaged or
 * forged journal blocks writers, shows in `akm health` and is resolved by
 * `akm proposal recover`.
 */
const sha256 = (bytes: string | Uint8Array) => createHash("sha256").update(bytes).digest("hex")

describe("records match bytes (issue 13 item 2)", () => {
  let entry: Awaited<ReturnType<typeof bundleChild>>
  const open: Array<Workspace> = []
  beforeAll(async () => {
    entry = await bundleChild("cliWithCrashPoints")
  }, 120_000)
  afterAll(() => {
    entry.dispose()
    for (const ws of open) ws.cleanup()
  })

  const setup = async () => {
    const ws = makeWorkspace()
    open.push(ws)
    const kb = ws.folder("kb", { "knowledge/a.md": "---\ndescription: A note\n---\n# A\n\nAbout caching.\n" })
    const drafts = ws.folder("drafts", {
      "a.md": "---\ndescription: A note\n---\n# A\n\nAbout caching, revised.\n",
      "new.md": "---\ndescription: New\n---\n# New\n\nA new note.\n"
    })
    expect((await ws.run(["init"])).code).toBe(0)
    expect((await ws.run(["bundle", "add", kb, "--name", "kb", "--adapter", "akm"])).code).toBe(0)
    const propose = async () => {
      const made = await ws.run(["proposal", "new", "--bundle", "kb", "--file", `knowledge/a.md=@${drafts}/a.md`, "--file", `knowledge/new.md=@${drafts}/new.md`, "--title", "Revise A, add New"])
      expect(made.code, made.stderr).toBe(0)
      return made.json<{ id: string }>().id
    }
    const status = async (id: string) => (await ws.run(["proposal", "show", id])).json<{ status: string }>().status
    return { ws, kb, propose, status }
  }

  it.each(["after-commit-mark", "after-journal-removed"])("(a) an accept killed at %s: the next command records it accepted; reject refuses, revert restores", async (point) => {
    const { ws, kb, propose, status } = await setup()
    const pre = snapshot(kb)
    const id = await propose()
    const crashed = await runCrashCli(entry.script, ws, ["proposal", "accept", id, "-y"], point)
    expect(crashed.signal).toBe("SIGKILL")
    const post = snapshot(kb)
    expect(post).not.toEqual(pre)
    const rejected = await ws.run(["proposal", "reject", id.slice(0, 8), "--reason", "too late"])
    expect(rejected.code).toBe(1)
    expect(await status(id)).toBe("accepted")
    expect(snapshot(kb)).toEqual(post)
    const reverted = await ws.run(["proposal", "revert", id.slice(0, 8)])
    expect(reverted.code, reverted.stderr).toBe(0)
    expect(snapshot(kb)).toEqual(pre)
    expect(await status(id)).toBe("reverted")
  }, 90_000)

  it("(b) three concurrent identical remembers: distinct files, one accepted proposal per file, each revertible", async () => {
    const { ws, kb } = await setup()
    const memories = () => (fs.existsSync(path.join(kb, "memories")) ? fs.readdirSync(path.join(kb, "memories")).sort() : [])
    const runs = await Promise.all([1, 2, 3].map(() => ws.run(["remember", "Deploys freeze on Fridays.", "--bundle", "kb"])))
    for (const run of runs) expect([0, 1], run.stderr).toContain(run.code)
    const listed = (await ws.run(["proposal", "list", "--recipe", "remember"])).json<{ proposals: Array<{ id: string; status: string; files: Array<{ path: string }> }> }>().proposals
    const accepted = listed.filter((p) => p.status === "accepted")
    expect(accepted.length).toBe(runs.filter((r) => r.code === 0).length)
    expect(accepted.length).toBeGreaterThanOrEqual(1)
    expect(new Set(accepted.map((p) => p.files[0]!.path)).size).toBe(accepted.length)
    expect(memories()).toHaveLength(accepted.length)
    for (const p of accepted) {
      const reverted = await ws.run(["proposal", "revert", p.id])
      expect(reverted.code, reverted.stderr).toBe(0)
    }
    expect(memories()).toEqual([])
  }, 90_000)

  it.each([
    ["rollback", "write"],
    ["forward", "write"],
    ["forward", "after-commit-mark"]
  ] as const)("(c) a journal damaged after a kill blocks writers, shows in health, and recover --%s (killed at %s) ends in the full pre- or post-state", async (direction, point) => {
    const { ws, kb, propose, status } = await setup()
    const pre = snapshot(kb)
    const id = await propose()
    const crashed = await runCrashCli(entry.script, ws, ["proposal", "accept", id, "-y"], point)
    expect(crashed.signal).toBe("SIGKILL")
    const journal = path.join(ws.dataDir, "txn", id, "journal.json")
    fs.writeFileSync(journal, fs.readFileSync(journal, "utf8").slice(0, 40))

    const blocked = await ws.run(["remember", "Blocked while damaged", "--bundle", "kb"])
    expect(blocked.code).toBe(1)
    expect(blocked.stderr).toContain(`transaction ${id}`)
    expect(blocked.stderr).toContain(`akm proposal recover ${id}`)
    const health = await ws.run(["health"])
    expect(health.code).toBe(4)
    expect(health.json<{ attention: Array<{ code: string; message: string }> }>().attention).toContainEqual(expect.objectContaining({ code: "damaged-journal", message: expect.stringContaining(id) }))

    const recovered = await ws.run(["proposal", "recover", id.slice(0, 8), `--${direction}`])
    expect(recovered.code, recovered.stderr).toBe(0)
    expect(await status(id)).toBe(direction === "rollback" ? "pending" : "accepted")
    if (direction === "rollback") expect(snapshot(kb)).toEqual(pre)
    else {
      expect(fs.readFileSync(path.join(kb, "knowledge/new.md"), "utf8")).toContain("A new note.")
      expect(fs.readFileSync(path.join(kb, "knowledge/a.md"), "utf8")).toContain("revised")
      expect((await ws.run(["proposal", "revert", id])).code).toBe(0)
      expect(snapshot(kb)).toEqual(pre)
    }
    expect((await ws.run(["health"])).json<{ attention: Array<{ code: string }> }>().attention.map((a) => a.code)).not.toContain("damaged-journal")
    expect((await ws.run(["remember", "Writes again", "--bundle", "kb"])).code).toBe(0)
  }, 90_000)

  it("(c) a forged journal with no proposal is refused by writers and recovered by its txn id from the backups", async () => {
    const { ws, kb } = await setup()
    const original = fs.readFileSync(path.join(kb, "knowledge/a.md"))
    const pre = snapshot(kb)
    putBlob(path.join(ws.dataDir, "archive"), original)
    const forged = "# Forged\n"
    fs.writeFileSync(path.join(kb, "knowledge/a.md"), forged)
    const root = fs.realpathSync(kb)
    const journal: Journal = {
      version: 1,
      id: "forged-1",
      op: "apply",
      phase: "prepared",
      createdAt: new Date().toISOString(),
      pid: 999_999,
      bundles: { kb: { root, gitCommit: false } },
      // Not a temp name the engine uses: recovery refuses the whole journal.
      targets: [{ bundle: "kb", path: "knowledge/a.md", beforeHash: sha256(original), afterHash: sha256(forged), backup: sha256(original), temp: "knowledge/evil.tmp" }],
      createdDirs: []
    }
    writeJournal(path.join(ws.dataDir, "txn"), journal)
    const blocked = await ws.run(["remember", "Blocked by a forged journal", "--bundle", "kb"])
    expect(blocked.code).toBe(1)
    expect(blocked.stderr).toContain("akm proposal recover forged-1")
    expect((await ws.run(["health"])).code).toBe(4)
    const recovered = await ws.run(["proposal", "recover", "forged-1", "--rollback"])
    expect(recovered.code, recovered.stderr).toBe(0)
    expect(snapshot(kb)).toEqual(pre)
    expect((await ws.run(["remember", "Writes again", "--bundle", "kb"])).code).toBe(0)
  }, 90_000)

  it("(c) a forged journal aimed at .git/ never touches it; recover sets it aside and writers go on", async () => {
    const { ws, kb } = await setup()
    fs.mkdirSync(path.join(kb, ".git"))
    fs.writeFileSync(path.join(kb, ".git/config"), "[core]\n\thooksPath = evil\n")
    const good = "[core]\n"
    putBlob(path.join(ws.dataDir, "archive"), new TextEncoder().encode(good))
    writeJournal(path.join(ws.dataDir, "txn"), {
      version: 1,
      id: "forged-git",
      op: "apply",
      phase: "prepared",
      createdAt: new Date().toISOString(),
      pid: 999_999,
      bundles: { kb: { root: fs.realpathSync(kb), gitCommit: false } },
      targets: [{ bundle: "kb", path: ".git/config", beforeHash: sha256(good), afterHash: sha256("[core]\n\thooksPath = evil\n"), backup: sha256(good), temp: ".git/.akm-tx-000000000000-0.tmp" }],
      createdDirs: []
    })
    expect((await ws.run(["remember", "Blocked", "--bundle", "kb"])).code).toBe(1)
    const recovered = await ws.run(["proposal", "recover", "forged-git", "--rollback"])
    expect(recovered.code).toBe(1)
    expect(recovered.stderr).toContain("version-control metadata")
    expect(fs.readFileSync(path.join(kb, ".git/config"), "utf8")).toBe("[core]\n\thooksPath = evil\n")
    expect((await ws.run(["remember", "Writes again", "--bundle", "kb"])).code).toBe(0)
  }, 90_000)
})
