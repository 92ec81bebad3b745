import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { adminStatement, postgresSuites, TEST_DATABASE_URL } from "./pgTestDb.js"

/**
 * Servers that configure different bundles over one shared index (decision
 * 0042): an index run on one server leaves the other's bundles alone unless
 * told (`akm index --prune`), and `akm health` reports the difference.
 */
postgresSuites("team mode: bundles one server does not configure", () => {
  describe("team mode: bundles one server does not configure", () => {
    const schema = `akm_t_bundles_${process.pid}_${Date.now()}`
    const url = new URL(TEST_DATABASE_URL!)
    url.searchParams.set("options", `-c search_path=${schema}`)
    const env = { AKM_DATABASE_URL: url.toString() }
    let a: Workspace
    let b: Workspace

    const json = async (ws: Workspace, args: ReadonlyArray<string>, codes: ReadonlyArray<number> = [0]) => {
      const run = await ws.run([...args, "--format", "json"], { env })
      expect(codes, `${args.join(" ")}: ${run.stderr}`).toContain(run.code)
      return run.json()
    }
    const refs = async (ws: Workspace, query: string) => (await json(ws, ["search", query])).hits.map((h: { ref: string }) => h.ref)

    beforeAll(async () => {
      await adminStatement(`CREATE SCHEMA ${schema}`)
      a = makeWorkspace()
      b = makeWorkspace()
      const note = (what: string) => `---\ndescription: ${what}\n---\n# ${what}\n\n${what} runbook.\n`
      const shared = a.folder("shared-kb", { "knowledge/billing.md": note("Billing queue") })
      const onlyA = a.folder("a-notes", { "knowledge/pelican.md": note("Pelican deploys") })
      const onlyB = b.folder("b-notes", { "knowledge/walrus.md": note("Walrus backups") })
      for (const [ws, own] of [[a, onlyA], [b, onlyB]] as const) {
        expect((await ws.run(["init"], { env })).code).toBe(0)
        writeFileSync(join(ws.configDir, "config.yaml"), "storage:\n  kind: postgres\n", { flag: "a" })
        for (const [folder, name] of [[shared, "kb"], [own, ws === a ? "a-notes" : "b-notes"]] as const) {
          const added = await ws.run(["bundle", "add", folder, "--name", name, "--adapter", "akm"], { env })
          expect(added.code, added.stderr).toBe(0)
        }
      }
    }, 300_000)
    afterAll(async () => {
      a?.cleanup()
      b?.cleanup()
      await adminStatement(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    })

    it("an index run on one server leaves the bundles only another server configures, and lists them", async () => {
      const byA = await json(a, ["index"])
      expect(byA.removedBundles).toEqual([])
      expect(byA.keptBundles).toEqual(["b-notes"])
      const byB = await json(b, ["index", "--full"])
      expect(byB.removedBundles).toEqual([])
      expect(byB.keptBundles).toEqual(["a-notes"])
      // Both servers still find both servers' bundles in the one index.
      for (const ws of [a, b]) {
        expect(await refs(ws, "pelican deploys")).toContain("a-notes//knowledge/pelican")
        expect(await refs(ws, "walrus backups")).toContain("b-notes//knowledge/walrus")
      }
      const text = await b.run(["index", "--format", "text"], { env })
      expect(text.code, text.stderr).toBe(0)
      expect(text.stdout).toContain("left in the shared index (not configured on this server; --prune removes them): a-notes")
    }, 240_000)

    it("akm health names the bundles of the shared index this server does not configure", async () => {
      const health = await json(b, ["health"], [4])
      const differ = health.attention.filter((x: { code: string }) => x.code === "unconfigured-shared")
      expect(differ.map((x: { bundle: string }) => x.bundle)).toEqual(["a-notes"])
      expect(differ[0].message).toContain("this server does not configure")
      expect(differ[0].hint).toContain("akm index --prune")
      expect(health.attention.map((x: { code: string }) => x.code)).not.toContain("orphaned")
    }, 120_000)

    it("--prune removes them, only on a whole run; the owning server's next run puts them back", async () => {
      const one = await b.run(["index", "--bundle", "kb", "--prune"], { env })
      expect(one.code).toBe(2)
      expect(one.stderr).toContain("--prune applies to a run over every bundle")
      expect(await refs(b, "pelican deploys")).toContain("a-notes//knowledge/pelican")

      const dry = await json(b, ["index", "--prune", "--dry-run"])
      expect(dry.removedBundles).toEqual(["a-notes"])
      expect(await refs(b, "pelican deploys")).toContain("a-notes//knowledge/pelican")

      const pruned = await json(b, ["index", "--prune"])
      expect(pruned.removedBundles).toEqual(["a-notes"])
      expect(pruned.keptBundles).toEqual([])
      expect(await refs(b, "pelican deploys")).not.toContain("a-notes//knowledge/pelican")
      expect((await json(b, ["health"], [0, 4])).attention.map((x: { code: string }) => x.code)).not.toContain("unconfigured-shared")
      // Server A still configures it: its health says it is not indexed, and its next run indexes it again.
      expect((await json(a, ["health"], [4])).attention).toContainEqual(expect.objectContaining({ code: "not-indexed", bundle: "a-notes" }))
      await json(a, ["index"])
      expect(await refs(b, "pelican deploys")).toContain("a-notes//knowledge/pelican")
    }, 240_000)
  })
})
