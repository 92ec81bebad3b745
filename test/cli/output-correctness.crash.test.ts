import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { runCrashCli } from "../support/crashCli.js"
import { bundleChild, snapshot } from "../support/txHarness.js"

/**
 * Issue 15 item 5, revert's directories under SIGKILL (the crash entry point,
 * as test/crash/records.test.ts runs it): an accept finished by recovery still
 * records the directories it created, so a later revert removes them; a
 * revert killed after its files are gone leaves at most empty directories —
 * no file is lost, and the proposal is recorded reverted.
 */
describe("proposal revert's created directories survive crashes (issue 15 item 5)", () => {
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
    const drafts = ws.folder("drafts", { "new.md": "---\ndescription: New\n---\n# New\n\nA new note.\n" })
    expect((await ws.run(["init"])).code).toBe(0)
    expect((await ws.run(["bundle", "add", kb, "--name", "kb", "--adapter", "akm"])).code).toBe(0)
    const made = await ws.run(["proposal", "new", "--bundle", "kb", "--file", `knowledge/deep/er/new.md=@${drafts}/new.md`, "--title", "Add New"])
    expect(made.code, made.stderr).toBe(0)
    const status = async (id: string) => (await ws.run(["proposal", "show", id])).json<{ status: string }>().status
    return { ws, kb, id: made.json<{ id: string }>().id, status }
  }

  it("an accept killed after its journal went: the next revert still removes the directories it created", async () => {
    const { ws, kb, id, status } = await setup()
    const pre = snapshot(kb)
    const crashed = await runCrashCli(entry.script, ws, ["proposal", "accept", id, "-y"], "after-journal-removed")
    expect(crashed.signal).toBe("SIGKILL")
    expect(fs.existsSync(path.join(kb, "knowledge/deep/er/new.md"))).toBe(true)
    const reverted = await ws.run(["proposal", "revert", id.slice(0, 8)])
    expect(reverted.code, reverted.stderr).toBe(0)
    expect(await status(id)).toBe("reverted")
    expect(snapshot(kb)).toEqual(pre)
  }, 90_000)

  it.each(["after-commit-mark", "after-journal-removed"])("a revert killed at %s loses nothing: its files are gone, every other file stays", async (point) => {
    const { ws, kb, id, status } = await setup()
    const pre = snapshot(kb)
    expect((await ws.run(["proposal", "accept", id, "-y"])).code).toBe(0)
    const crashed = await runCrashCli(entry.script, ws, ["proposal", "revert", id], point)
    expect(crashed.signal).toBe("SIGKILL")
    // The next writing command finishes what the revert committed (so a second revert is refused);
    // only empty directories may be left behind.
    const again = await ws.run(["proposal", "revert", id.slice(0, 8)])
    expect(again.code, again.stderr).toBe(1)
    expect(await status(id)).toBe("reverted")
    const files = (tree: Record<string, string>) => Object.fromEntries(Object.entries(tree).filter(([, kind]) => !kind.startsWith("dir ")))
    expect(files(snapshot(kb))).toEqual(files(pre))
    expect(fs.existsSync(path.join(kb, "knowledge/a.md"))).toBe(true)
  }, 90_000)
})
