import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleChild, leftoverJournals, makeWorkspace, runChild, sha256 } from "../support/txHarness.js"

/**
 * R-TX-9 under crashes: a two-phase move (publish into "team", then retire
 * the source in "notes") killed at any point is resolved by recovery to
 * either "not moved" (source only) or "moved" (destination only) — never a
 * loss, and never both once recovery has run.
 */
const memory = "# M\n\nremembered\n"

describe("crash during a two-phase move", () => {
  let child: Awaited<ReturnType<typeof bundleChild>>
  beforeAll(async () => {
    child = await bundleChild()
  }, 60_000)
  afterAll(() => child.dispose())

  const cases: ReadonlyArray<[string, "not moved" | "moved"]> = [
    ["after-retire-record", "not moved"],
    ["write#1", "not moved"],
    ["after-publish", "moved"],
    ["delete#1", "moved"],
    ["after-journal#2", "moved"]
  ]
  for (const [point, outcome] of cases) {
    it(`SIGKILL at ${point}: recovery leaves the item ${outcome}`, async () => {
      const ws = makeWorkspace({ "memories/m.md": memory }, { others: { team: {} } })
      try {
        const crashed = await runChild(child.script, ws, {
          op: "twoPhase",
          request: { id: "move", changes: [{ bundle: "team", path: "knowledge/m.md", beforeHash: null, after: memory }] },
          retire: { id: "move-retire", changes: [{ bundle: "notes", path: "memories/m.md", beforeHash: sha256(memory), delete: true }] }
        }, { AKM_TX_CRASH_AT: point })
        expect(crashed.crashedAt).toBe(point.includes("#") ? point : `${point}#1`)
        const recovered = await runChild(child.script, ws, { op: "recover" })
        expect(recovered.result).toMatchObject({ ok: true, value: { refused: [] } })
        const source = fs.existsSync(path.join(ws.root, "memories/m.md"))
        const destination = fs.existsSync(path.join(ws.base, "team", "knowledge/m.md"))
        expect({ source, destination }).toEqual(outcome === "moved" ? { source: false, destination: true } : { source: true, destination: false })
        expect(leftoverJournals(ws)).toEqual([])
      } finally {
        ws.dispose()
      }
    })
  }
})
