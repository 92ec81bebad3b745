import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { adminStatement, TEST_DATABASE_URL } from "./pgTestDb.js"

/**
 * Two akm "servers" — two workspaces with their own $DATA and $CACHE — on one
 * PostgreSQL database (a schema of its own): what one records, the other sees.
 */
export const cliSuite = () =>
  describe("akm CLI with storage.kind postgres: two servers on one database", () => {
    const schema = `akm_t_cli_${process.pid}_${Date.now()}`
    const url = new URL(TEST_DATABASE_URL!)
    url.searchParams.set("options", `-c search_path=${schema}`)
    const env = { AKM_DATABASE_URL: url.toString() }
    let a: Workspace
    let b: Workspace

    beforeAll(async () => {
      await adminStatement(`CREATE SCHEMA ${schema}`)
      a = makeWorkspace()
      b = makeWorkspace()
      for (const ws of [a, b]) {
        await ws.run(["init"], { env })
        writeFileSync(join(ws.configDir, "config.yaml"), "storage:\n  kind: postgres\n")
      }
    }, 600_000)
    afterAll(async () => {
      a?.cleanup()
      b?.cleanup()
      await adminStatement(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    })

    it("info and health name the backend, the server and its version, never the URL's credentials", async () => {
      const info = await a.run(["info", "--format", "json"], { env })
      expect(info.code).toBe(0)
      expect(info.json().storage).toMatchObject({ backend: "postgres", server: `postgres://${url.host}${url.pathname}`, reachable: true })
      expect(info.json().storage.version).toMatch(/^\d+/)
      expect(info.stdout).not.toContain("search_path")
      const health = await b.run(["health", "--format", "json"], { env })
      expect(health.code).toBe(0)
      expect(health.json()).toMatchObject({ ok: true, storage: { backend: "postgres", reachable: true }, proposals: { pending: 0 } })
    })

    it("a remember through server A is an accepted proposal that server B lists", async () => {
      await a.run(["bundle", "create", "team", "--adapter", "akm"], { env })
      const remembered = await a.run(["remember", "the staging database listens on port 6543", "--bundle", "team", "--format", "json"], { env })
      expect(remembered.code).toBe(0)
      const listed = await b.run(["proposal", "list", "--format", "json"], { env })
      expect(listed.code).toBe(0)
      const proposals = listed.json().proposals ?? listed.json()
      expect(JSON.stringify(proposals)).toContain("accepted")
      expect(JSON.stringify(proposals)).toContain('"bundle":"team","path":"memories/')
    })

    it("one index on the database: what server A indexes and remembers, server B searches and shows (issue 27 items 1, 6)", async () => {
      // A bundle on storage both servers mount at the same path (docs/team.md).
      const shared = a.folder("shared-kb", { "knowledge/runbook.md": "---\ndescription: Restart the billing queue\n---\n# Billing queue\n\nDrain, then restart the billing workers.\n" })
      for (const ws of [a, b]) expect((await ws.run(["bundle", "add", shared, "--name", "kb", "--adapter", "akm", "--writable"], { env })).code).toBe(0)
      const indexed = await a.run(["index"], { env })
      expect(indexed.code, indexed.stderr).toBe(0)
      const found = await b.run(["search", "billing workers", "--format", "json"], { env })
      expect(found.code, found.stderr).toBe(0)
      expect(found.json().hits[0].ref).toBe("kb//knowledge/runbook")
      expect(existsSync(join(b.dataDir, "index.db"))).toBe(false)

      const remembered = await a.run(["remember", "the billing queue drains in about ninety seconds", "--bundle", "kb", "--format", "json"], { env })
      expect(remembered.code, remembered.stderr).toBe(0)
      const hit = (await b.run(["search", "billing queue drains ninety seconds", "--format", "json"], { env })).json().hits[0]
      expect(hit.ref).toMatch(/^kb\/\/memories\//)
      const shown = await b.run(["show", hit.ref, "--no-track"], { env })
      expect(shown.code, shown.stderr).toBe(0)
      expect(shown.stdout).toContain("ninety seconds")
    }, 240_000)

    it("storage migrate copies a SQLite workspace's state into an empty database, counts verified, and refuses a second run", async () => {
      const target = `${schema}_mig`
      await adminStatement(`CREATE SCHEMA ${target}`)
      try {
        const c = makeWorkspace()
        try {
          await c.run(["init"])
          await c.run(["bundle", "create", "solo", "--adapter", "akm"])
          expect((await c.run(["remember", "deploys need the release checklist first", "--bundle", "solo", "--format", "json"])).code).toBe(0)
          await c.run(["search", "release checklist"])
          const ref = (await c.run(["search", "release checklist", "--format", "json"])).json().hits[0].ref
          await c.run(["show", ref])
          expect((await c.run(["feedback", ref, "--positive"])).code).toBe(0)
          expect((await c.run(["evidence", "add", "--kind", "negative-feedback", "--ref", ref, "--note", "step 2 is outdated"])).code).toBe(0)
          expect((await c.run(["evidence", "add", "--kind", "negative-feedback", "--ref", ref, "--note", "step 3 is outdated too"])).code).toBe(0)
          const before = (await c.run(["proposal", "list", "--format", "json"])).json()
          const evidenceBefore = (await c.run(["evidence", "list", "--format", "json"])).json()

          const to = new URL(TEST_DATABASE_URL!)
          to.searchParams.set("options", `-c search_path=${target}`)
          const migrateEnv = { AKM_DATABASE_URL: to.toString() }
          writeFileSync(join(c.configDir, "config.yaml"), "storage:\n  kind: postgres\n", { flag: "a" })
          const migrated = await c.run(["storage", "migrate", "--format", "json"], { env: migrateEnv })
          expect(migrated.code, migrated.stderr).toBe(0)
          const tables = new Map(migrated.json().tables.map((t: { table: string; source: number; target: number }) => [t.table, t]))
          for (const t of tables.values() as Iterable<{ source: number; target: number }>) expect(t.target).toBe(t.source)
          for (const table of ["events", "usage_events", "feedback", "utility", "proposals", "proposal_changes", "proposal_outcomes", "evidence"]) {
            expect((tables.get(table) as { source: number }).source, table).toBeGreaterThan(0)
          }
          expect(migrated.stdout).not.toContain("search_path")
          // Now served from PostgreSQL: the same proposals, and the learned utility carried over.
          const after = (await c.run(["proposal", "list", "--format", "json"], { env: migrateEnv })).json()
          expect(after).toEqual(before)
          // Evidence too, rows and order (EvidenceStorePg lists it from the team database).
          const evidenceAfter = (await c.run(["evidence", "list", "--format", "json"], { env: migrateEnv })).json()
          expect(evidenceAfter.rows.length).toBeGreaterThanOrEqual(2)
          expect(evidenceAfter).toEqual(evidenceBefore)
          const again = await c.run(["storage", "migrate", "--format", "json"], { env: migrateEnv })
          expect(again.code).toBe(1)
          expect(again.error().error).toMatchObject({ code: "conflict" })
          expect(again.error().error.message).toContain("already holds state")
        } finally {
          c.cleanup()
        }
      } finally {
        await adminStatement(`DROP SCHEMA IF EXISTS ${target} CASCADE`)
      }
    })
  })
