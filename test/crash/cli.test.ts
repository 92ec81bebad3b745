import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { bundleChild } from "../support/txHarness.js"

/**
 * The CrashPoints seam through the whole CLI (R-TX-10, spec 11): the shipped
 * CLI (bin/akm.js → dist/) ignores AKM_TX_CRASH_AT, while the test-only entry
 * point (test/support/cliWithCrashPoints.ts: the same runCli with the
 * CrashPoints test layer) dies at the named phase; the next shipped command
 * recovers the journal it left, so the tree is back at its pre-state.
 */
describe("crash points through the CLI", () => {
  let entry: Awaited<ReturnType<typeof bundleChild>>
  let ws: Workspace
  let kb: string
  beforeAll(async () => {
    entry = await bundleChild("cliWithCrashPoints")
    ws = makeWorkspace()
    kb = ws.folder("kb", { "knowledge/a.md": "---\ndescription: A note\n---\n# A\n\nAbout caching.\n" })
    expect((await ws.run(["init"])).code).toBe(0)
    expect((await ws.run(["bundle", "add", kb, "--name", "kb", "--adapter", "akm"])).code).toBe(0)
  }, 120_000)
  afterAll(() => {
    entry.dispose()
    ws.cleanup()
  })

  const memories = () => (fs.existsSync(path.join(kb, "memories")) ? fs.readdirSync(path.join(kb, "memories")).sort() : [])
  const journals = () => (fs.existsSync(path.join(ws.dataDir, "txn")) ? fs.readdirSync(path.join(ws.dataDir, "txn")).filter((n) => n !== ".unresolved" && n !== ".finished") : [])

  it("the shipped CLI never crashes on AKM_TX_CRASH_AT", async () => {
    const result = await ws.run(["remember", "Shipped builds ignore crash hooks", "--bundle", "kb", "--title", "shipped"], { env: { AKM_TX_CRASH_AT: "after-journal" } })
    expect(result.code).toBe(0)
    expect(result.stderr).not.toContain("akm-crash-point")
    expect(memories()).toHaveLength(1)
  }, 60_000)

  it("the test entry point dies at the named phase; the next shipped command rolls the set back", async () => {
    const before = memories()
    const crashed = await new Promise<{ signal: NodeJS.Signals | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [entry.script, "remember", "Lost in a crash", "--bundle", "kb", "--title", "crashed"], {
        cwd: ws.root,
        env: { ...ws.env, AKM_TX_CRASH_AT: "write" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stderr = ""
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
      child.once("error", reject)
      child.once("close", (_code, signal) => resolve({ signal, stderr }))
    })
    expect(crashed.signal).toBe("SIGKILL")
    expect(crashed.stderr).toContain("akm-crash-point write#1")
    expect(journals()).toHaveLength(1)
    expect(memories()).toHaveLength(before.length + 1)

    const next = await ws.run(["remember", "After the crash", "--bundle", "kb", "--title", "after"])
    expect(next.code).toBe(0)
    expect(journals()).toEqual([])
    const after = memories()
    expect(after).toHaveLength(before.length + 1)
    expect(after.filter((name) => !before.includes(name)).join()).toContain("after")
  }, 60_000)
})
