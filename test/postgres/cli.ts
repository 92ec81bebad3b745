import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Redacted } from "effect"
import { connectPg } from "../../src/layers/postgres/client.js"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { TEST_DATABASE_URL } from "./pgTestDb.js"

/**
 * Two akm "servers" — two workspaces with their own $DATA and $CACHE — on one
 * PostgreSQL database (a schema of its own): what one records, the other sees.
 */
export const cliSuite = () =>
  describe("akm CLI with storage.kind postgres: two servers on one database", () => {
    const schema = `akm_t_cli_${process.pid}_${Date.now()}`
    const admin = (statement: string) =>
      Effect.runPromise(Effect.scoped(Effect.flatMap(connectPg(Redacted.make(TEST_DATABASE_URL!), { maxConnections: 1 }), (sql) => sql.unsafe(statement))))
    const url = new URL(TEST_DATABASE_URL!)
    url.searchParams.set("options", `-c search_path=${schema}`)
    const env = { AKM_DATABASE_URL: url.toString() }
    let a: Workspace
    let b: Workspace

    beforeAll(async () => {
      await admin(`CREATE SCHEMA ${schema}`)
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
      await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
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
  })
