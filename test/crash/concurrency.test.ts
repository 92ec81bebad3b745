import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleChild, integrityCheck, leaseHeld, leftoverJournals, makeWorkspace, runChild, sha256, type ChildRun } from "../support/txHarness.js"

/**
 * R-TX-8 with real processes: two writers apply different changes to the same
 * file against the same before-hash, released at once from a start line. The
 * lease serialises them (the first holds it a while after taking it, so the
 * second really waits); exactly one wins, the other fails cleanly with
 * StaleBeforeHash, and the file holds the winner's bytes — no lost update.
 */
describe("two processes applying to one root", () => {
  let child: Awaited<ReturnType<typeof bundleChild>>
  beforeAll(async () => {
    child = await bundleChild()
  }, 60_000)
  afterAll(() => child.dispose())

  it("serialise through the lease: one wins, the other fails with StaleBeforeHash", async () => {
    const before = "# Shared\n\nbefore\n"
    const ws = makeWorkspace({ "knowledge/shared.md": before })
    try {
      const go = path.join(ws.base, "go")
      const writers = ["first", "second"].map((who) => ({
        op: "apply" as const,
        go,
        request: { id: `race-${who}`, changes: [{ bundle: "notes", path: "knowledge/shared.md", beforeHash: sha256(before), after: `# Shared\n\nwritten by ${who}\n` }] }
      }))
      let ready = 0
      const runs: ReadonlyArray<ChildRun> = await Promise.all(writers.map((op) =>
        runChild(child.script, ws, op, { AKM_TX_PAUSE_AT: "after-lease:300" }, () => {
          if (++ready === writers.length) fs.writeFileSync(go, "")
        })
      ))
      const winners = runs.filter((r) => r.result?.ok === true)
      const losers = runs.filter((r) => r.result?.ok === false)
      expect(winners).toHaveLength(1)
      expect(losers).toHaveLength(1)
      expect(losers[0]!.result!.error).toMatchObject({ _tag: "StaleBeforeHash", path: "knowledge/shared.md", expected: sha256(before) })
      const winner = (winners[0]!.result!.value as { id: string }).id.replace("race-", "")
      expect(fs.readFileSync(path.join(ws.root, "knowledge/shared.md"), "utf8")).toBe(`# Shared\n\nwritten by ${winner}\n`)
      expect(losers[0]!.result!.error).toMatchObject({ actual: sha256(`# Shared\n\nwritten by ${winner}\n`) })
      expect(leftoverJournals(ws)).toEqual([])
      expect(leaseHeld(ws)).toBe(false)
      expect(integrityCheck(path.join(ws.dataDir, "state.db"))).toBe("ok")
    } finally {
      ws.dispose()
    }
  })
})
