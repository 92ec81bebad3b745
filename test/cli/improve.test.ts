import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readRows } from "../support/readDatabase.js"
import { bundleChild, makeWorkspace, snapshot, type TxWorkspace } from "../support/txHarness.js"

/**
 * `akm improve` as a process (spec 06 §4): the improve lease with real child
 * processes (R-IMP-4), a dry run that changes no byte anywhere (R-IMP-6),
 * exit 0 on nothing to do and on --skip-if-locked, run records (R-IMP-7).
 * The CLI runs through test/support/improveCli.ts: the shipped CLI with a
 * scripted generator and file-backed evidence.
 */

const ROLLBACK = "---\ndescription: Roll back a failed release of the web app\ntags: [release, rollback]\n---\n# Deploy rollback\n\nRoll back when the new release fails its checks.\n\n## Restore the previous build\n\nRun the release tool with the previous build id.\n"
const GOOD = ROLLBACK.replace("tags: [release, rollback]", "tags: [release, rollback, undo, revert]").replace("Roll back when", "Roll back (undo a bad deploy) when")
const FILES = {
  "knowledge/deploy-rollback.md": ROLLBACK,
  "knowledge/database-backups.md": "---\ndescription: Nightly database backups\n---\n# Database backups\n\nBackups run at 02:00.\n",
  "knowledge/feature-flags.md": "---\ndescription: Turning features on and off\n---\n# Feature flags\n\nFlags live in the flag service.\n"
}
const EVIDENCE = [{ kind: "negative-feedback", source: "feedback", ref: "notes//knowledge/deploy-rollback", note: "could not find how to undo a bad deploy", query: "undo bad deploy" }]

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

let child: Awaited<ReturnType<typeof bundleChild>>
beforeAll(async () => {
  child = await bundleChild("improveCli")
}, 120_000)
afterAll(() => child.dispose())

const env = (ws: TxWorkspace, extra: Readonly<Record<string, string>> = {}) => ({
  ...process.env,
  AKM_CONFIG_DIR: ws.configDir,
  AKM_DATA_DIR: ws.dataDir,
  AKM_CACHE_DIR: ws.cacheDir,
  AKM_TEST_EVIDENCE: path.join(ws.base, "evidence.json"),
  AKM_TEST_CANDIDATE: path.join(ws.base, "candidate.json"),
  AKM_TEST_CALLS: path.join(ws.base, "calls.log"),
  ...extra
})

const akm = (ws: TxWorkspace, args: ReadonlyArray<string>, extra: Readonly<Record<string, string>> = {}, onSpawn?: () => void): Promise<Run> =>
  new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child.script, ...args], { env: env(ws, extra), stdio: ["ignore", "pipe", "pipe"], cwd: os.tmpdir() })
    onSpawn?.()
    let stdout = ""
    let stderr = ""
    p.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c))
    p.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c))
    p.once("error", reject)
    p.once("close", (code) => resolve({ code, stdout, stderr }))
  })

const setUp = async (evidence: ReadonlyArray<unknown> = EVIDENCE) => {
  const ws = makeWorkspace(FILES)
  fs.writeFileSync(path.join(ws.base, "evidence.json"), JSON.stringify(evidence))
  fs.writeFileSync(path.join(ws.base, "candidate.json"), JSON.stringify([{ path: "knowledge/deploy-rollback.md", content: GOOD }]))
  const indexed = await akm(ws, ["index", "--format", "json"])
  expect(indexed.code, indexed.stderr).toBe(0)
  // A first (empty) run list migrates state.db, as any earlier command of this akm would have.
  expect((await akm(ws, ["improve", "runs", "--format", "json"])).code).toBe(0)
  return ws
}

const calls = (ws: TxWorkspace): number => (fs.existsSync(path.join(ws.base, "calls.log")) ? fs.readFileSync(path.join(ws.base, "calls.log"), "utf8").trim().split("\n").length : 0)

describe("akm improve (processes)", () => {
  it("with nothing to do exits 0 and says so", async () => {
    const ws = await setUp([])
    try {
      const run = await akm(ws, ["improve", "--format", "text"], { NO_COLOR: "1" })
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain("nothing to do")
    } finally {
      ws.dispose()
    }
  }, 60_000)

  it("R-IMP-6: --dry-run prints the planned attempt and changes no byte of any db or file", async () => {
    const ws = await setUp()
    try {
      const before = snapshot(ws.base)
      const run = await akm(ws, ["improve", "--dry-run", "--format", "json"])
      expect(run.code, run.stderr).toBe(0)
      const result = JSON.parse(run.stdout) as { run: { dryRun: boolean; targets: ReadonlyArray<{ outcome: string; reason: string }> } }
      expect(result.run.dryRun).toBe(true)
      expect(result.run.targets).toMatchObject([{ outcome: "planned", reason: expect.stringContaining("revise notes//knowledge/deploy-rollback") }])
      expect(calls(ws)).toBe(0)
      expect(snapshot(ws.base)).toEqual(before)
    } finally {
      ws.dispose()
    }
  }, 60_000)

  it("R-IMP-4: two runs at once — one waits, one skips with exit 0; never both; the waiter's repeat costs no model call", async () => {
    const ws = await setUp()
    try {
      const lease = path.join(ws.dataDir, "locks", "improve.lock")
      const first = akm(ws, ["improve", "--format", "json"], { AKM_TEST_DELAY_MS: "10000" })
      const deadline = Date.now() + 30_000
      while (!fs.existsSync(path.join(ws.base, "calls.log")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(fs.existsSync(lease)).toBe(true)
      const [skipped, waited] = await Promise.all([
        akm(ws, ["improve", "--skip-if-locked", "--format", "json"]),
        akm(ws, ["improve", "--format", "json"])
      ])
      const done = await first
      expect(done.code, done.stderr).toBe(0)
      expect(skipped.code, skipped.stderr).toBe(0)
      expect(JSON.parse(skipped.stdout)).toMatchObject({ _tag: "Locked" })
      expect(waited.code, waited.stderr).toBe(0)
      expect(JSON.parse(waited.stdout)).toMatchObject({ _tag: "Ran", run: { modelCalls: 0, targets: [{ outcome: "skipped" }] } })
      expect(calls(ws)).toBe(1)
      expect(fs.existsSync(lease)).toBe(false)
      const runs = readRows<{ n: number }>(path.join(ws.dataDir, "state.db"), "SELECT count(*) AS n FROM improve_runs")
      expect(runs[0]!.n).toBe(2)
      const proposals = readRows<{ n: number }>(path.join(ws.dataDir, "state.db"), "SELECT count(*) AS n FROM proposals WHERE recipe = 'revise'")
      expect(proposals[0]!.n).toBe(1)
      const listed = await akm(ws, ["improve", "runs", "--last", "1", "--format", "json"])
      expect(JSON.parse(listed.stdout)).toMatchObject({ runs: [{ modelCalls: 0 }] })
    } finally {
      ws.dispose()
    }
  }, 90_000)

  it("a stale improve lease (its process is gone) is taken over with an event", async () => {
    const ws = await setUp([])
    try {
      fs.mkdirSync(path.join(ws.dataDir, "locks"), { recursive: true })
      fs.writeFileSync(path.join(ws.dataDir, "locks", "improve.lock"), JSON.stringify({ pid: 2 ** 22 + 7, host: os.hostname(), startedAt: new Date().toISOString(), token: "dead" }))
      const run = await akm(ws, ["improve", "--skip-if-locked", "--format", "json"])
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout)).toMatchObject({ _tag: "Ran" })
      const events = readRows<{ subject: string }>(path.join(ws.dataDir, "state.db"), "SELECT subject FROM events WHERE kind = 'lease.taken-over'")
      expect(events.map((e) => e.subject)).toEqual(["locks/improve.lock"])
    } finally {
      ws.dispose()
    }
  }, 60_000)
})
