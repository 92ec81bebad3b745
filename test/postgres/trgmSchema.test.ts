import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { adminStatement, postgresSuites } from "./pgTestDb.js"
import { scratchDatabase } from "./scratchDatabase.js"

const note = "---\ndescription: Restart the billing queue\n---\n# Billing queue\n\nDrain, then restart the billing workers.\n"

/**
 * The index's migration and pg_trgm (decision 0034): the extension may live in
 * a schema the URL's search_path leaves out, and a role may not be allowed to
 * install it. Each case has a database of its own, so which schema holds
 * pg_trgm is the case's and no other suite's.
 */
postgresSuites("PostgreSQL index: pg_trgm outside the search_path, or not installable", (testUrl) => {
  describe("PostgreSQL index: pg_trgm outside the search_path, or not installable", () => {
    const scope = Effect.runSync(Scope.make())
    const role = `akm_e_trgm_role_${process.pid}`
    let ws: Workspace

    const database = (label: string) => Effect.runPromise(Scope.extend(scratchDatabase(testUrl, label), scope))
    const onSchema = (dbUrl: string, schema: string, user?: string) => {
      const url = new URL(dbUrl)
      url.searchParams.set("options", `-c search_path=${schema}`)
      if (user !== undefined) url.username = user
      return { AKM_DATABASE_URL: url.toString() }
    }
    /** A workspace on the database, and its `akm bundle add` of one note (which indexes it). */
    const workspace = async (env: Record<string, string>) => {
      ws?.cleanup()
      ws = makeWorkspace()
      expect((await ws.run(["init"], { env })).code).toBe(0)
      writeFileSync(join(ws.configDir, "config.yaml"), "storage:\n  kind: postgres\n", { flag: "a" })
      const kb = ws.folder("kb", { "knowledge/billing.md": note })
      return ws.run(["bundle", "add", kb, "--name", "kb", "--adapter", "akm", "--format", "json"], { env })
    }

    beforeAll(async () => {
      await adminStatement(`DROP ROLE IF EXISTS ${role}`)
      await adminStatement(`CREATE ROLE ${role} LOGIN`)
    })
    afterAll(async () => {
      ws?.cleanup()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await adminStatement(`DROP ROLE IF EXISTS ${role}`)
    })

    it("pg_trgm installed in another schema: migrate, index and search work, its operator class named by schema", async () => {
      const db = await database("trgm_elsewhere")
      for (const statement of ["CREATE SCHEMA ext_home", "CREATE EXTENSION pg_trgm SCHEMA ext_home", "CREATE SCHEMA team"]) await adminStatement(statement, db.url)
      const env = onSchema(db.url, "team")
      const added = await workspace(env)
      expect(added.code, added.stderr).toBe(0)
      const found = await ws.run(["search", "billing workers", "--format", "json"], { env })
      expect(found.code, found.stderr).toBe(0)
      expect(found.json().hits[0].ref).toBe("kb//knowledge/billing")
      // A fragment inside a word: the substring plan, which reads through the trigram index.
      const fragment = await ws.run(["search", "illin", "--format", "json"], { env })
      expect(fragment.code, fragment.stderr).toBe(0)
      expect(fragment.json().hits.map((h: { ref: string }) => h.ref)).toContain("kb//knowledge/billing")
      const [definition] = await adminStatement<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_documents_substrings'", db.url)
      expect(definition!.indexdef).toMatch(/ON team\.idx_documents USING gin \(s_all ext_home\.gin_trgm_ops\)/)
      const extensions = await adminStatement("SELECT extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'pg_trgm'", db.url)
      expect(extensions).toEqual([{ schema: "ext_home" }])
    }, 240_000)

    it("a role that may not install pg_trgm gets a database error saying who must, and works once the owner has", async () => {
      const db = await database("trgm_denied")
      await adminStatement(`CREATE SCHEMA own AUTHORIZATION ${role}`, db.url)
      const env = onSchema(db.url, "own", role)
      const refused = await workspace(env)
      expect(refused.code, refused.stderr).toBe(78)
      const { error } = refused.error()
      expect(error.code).toBe("workspace_unavailable")
      expect(error.message).toContain("CREATE EXTENSION pg_trgm")
      expect(error.message).toContain("permission denied")
      expect(error.hint).toContain("runs again on the next command")
      expect(refused.stderr).not.toContain("this is a bug")
      // Nothing of the failed migration stays: the owner installs the extension (public: every role may use it), akm carries on.
      await adminStatement("CREATE EXTENSION pg_trgm SCHEMA public", db.url)
      const indexed = await ws.run(["index", "--format", "json"], { env })
      expect(indexed.code, indexed.stderr).toBe(0)
      const found = await ws.run(["search", "billing workers", "--format", "json"], { env })
      expect(found.json().hits[0].ref).toBe("kb//knowledge/billing")
    }, 240_000)
  })
})
