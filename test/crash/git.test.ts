import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as git from "isomorphic-git"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleChild, leftoverJournals, makeWorkspace, runChild, sha256 } from "../support/txHarness.js"

/**
 * Step 11 under crashes: a set killed at the commit mark is rolled forward by
 * recovery, which makes the exact-path commit; a set killed after its commit
 * is not committed twice.
 */
describe("crash around the git commit of a bundle with git.commit", () => {
  let child: Awaited<ReturnType<typeof bundleChild>>
  beforeAll(async () => {
    child = await bundleChild()
  }, 60_000)
  afterAll(() => child.dispose())

  for (const point of ["after-commit-mark", "after-git-commit"]) {
    it(`SIGKILL at ${point}: after recovery HEAD holds exactly one commit of exactly the changed paths`, async () => {
      const ws = makeWorkspace({ "knowledge/a.md": "# A\n\nold\n", "knowledge/other.md": "# O\n\nclean\n" }, { gitCommit: true })
      try {
        await git.init({ fs, dir: ws.root, defaultBranch: "main" })
        await git.add({ fs, dir: ws.root, filepath: "." })
        await git.commit({ fs, dir: ws.root, message: "start", author: { name: "T", email: "t@example.com" } })
        fs.writeFileSync(`${ws.root}/knowledge/other.md`, "# O\n\nuser's unrelated edit\n")
        const request = {
          id: "g-crash",
          message: "akm: apply g-crash",
          changes: [
            { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nold\n"), after: "# A\n\nnew\n" },
            { bundle: "notes", path: "knowledge/c.md", beforeHash: null, after: "# C\n\ncreated\n" }
          ]
        }
        const crashed = await runChild(child.script, ws, { op: "apply", request }, { AKM_TX_CRASH_AT: point })
        expect(crashed.signal).toBe("SIGKILL")
        const recovered = await runChild(child.script, ws, { op: "recover" })
        expect(recovered.result).toMatchObject({ ok: true, value: { rolledForward: ["g-crash"], refused: [] } })
        const gitCli = (...args: Array<string>) => execFileSync("git", args, { cwd: ws.root, encoding: "utf8" })
        expect(gitCli("rev-list", "--count", "HEAD").trim()).toBe("2")
        expect(gitCli("show", "--name-only", "--format=%s", "HEAD").trim().split("\n")).toEqual(["akm: apply g-crash", "", "knowledge/a.md", "knowledge/c.md"])
        expect(gitCli("status", "--porcelain")).toBe(" M knowledge/other.md\n")
        expect(leftoverJournals(ws)).toEqual([])
      } finally {
        ws.dispose()
      }
    })
  }
})
