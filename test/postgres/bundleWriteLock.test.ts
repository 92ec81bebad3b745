import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Deferred, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WorkspaceUnavailable } from "../../src/domain/Errors.js"
import { makeBundleWriteLockPg } from "../../src/layers/postgres/BundleWriteLockPg.js"
import { PgStateDb, pgStateDbAt } from "../../src/layers/postgres/PgStateDb.js"
import type { BundleWriteLock } from "../../src/services/BundleWriteLock.js"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { adminStatement, postgresSuites } from "./pgTestDb.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The cross-server bundle write lock (issue 27 §3, decision 0033): the
 * transaction engine of every akm server on one database writes bundle files
 * one at a time, so a before-hash checked on one server is still true when it
 * renames.
 */
postgresSuites("the bundle write lock on PostgreSQL", (databaseUrl) => {
  describe("the bundle write lock on PostgreSQL", () => {
    const schema = `akm_t_lock_${process.pid}_${Date.now()}`
    const admin = (statement: string) => adminStatement(statement, databaseUrl)
    const url = new URL(databaseUrl)
    url.searchParams.set("options", `-c search_path=${schema}`)
    const env = { AKM_DATABASE_URL: url.toString() }
    const scope = Effect.runSync(Scope.make())
    /** A lock of "another server": its own pool on the same database. */
    const lockOf = async (waitMillis?: number): Promise<BundleWriteLock["Type"]> => {
      const context = await Effect.runPromise(Layer.buildWithScope(pgStateDbAt(Redacted.make(url.toString())), scope))
      return makeBundleWriteLockPg(context.unsafeMap.get(PgStateDb.key) as PgStateDb["Type"], waitMillis)
    }
    let a: Workspace
    let b: Workspace
    let shared: string

    beforeAll(async () => {
      await admin(`CREATE SCHEMA ${schema}`)
      a = makeWorkspace()
      b = makeWorkspace()
      shared = a.folder("shared-kb", { "knowledge/runbook.md": "---\ndescription: Restart the billing queue\n---\n# Billing queue\n\nDrain, then restart.\n" })
      for (const ws of [a, b]) {
        expect((await ws.run(["init"], { env })).code).toBe(0)
        writeFileSync(join(ws.configDir, "config.yaml"), "storage:\n  kind: postgres\n", { flag: "a" })
        const added = await ws.run(["bundle", "add", shared, "--name", "kb", "--adapter", "akm", "--writable"], { env })
        expect(added.code, added.stderr).toBe(0)
      }
    }, 300_000)
    afterAll(async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      a?.cleanup()
      b?.cleanup()
      await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    })

    it("two servers' holders never overlap, and a holder that waits too long gets a clear busy error", async () => {
      const [one, two] = [await lockOf(), await lockOf(300)]
      const spans: Array<readonly [number, number]> = []
      const hold = (lock: BundleWriteLock["Type"]) =>
        lock.around(Effect.gen(function* () {
          const start = Date.now()
          yield* Effect.sleep("150 millis")
          spans.push([start, Date.now()])
        }))
      await Effect.runPromise(Effect.all([hold(one), hold(await lockOf()), hold(one), hold(await lockOf())], { concurrency: 4 }))
      const sorted = [...spans].sort((x, y) => x[0] - y[0])
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]![0]).toBeGreaterThanOrEqual(sorted[i - 1]![1])

      const release = Effect.runSync(Deferred.make<void>())
      const held = Effect.runPromise(one.around(Deferred.await(release)))
      await sleep(100)
      const busy = await Effect.runPromise(Effect.flip(two.around(Effect.void)))
      expect(busy).toBeInstanceOf(WorkspaceUnavailable)
      expect(busy.reason).toContain("another akm server")
      Effect.runSync(Deferred.succeed(release, undefined))
      await held
      await Effect.runPromise(two.around(Effect.void))
    })

    it("a remember accepted through server B waits while another server holds the lock, then writes", async () => {
      const release = Effect.runSync(Deferred.make<void>())
      const taken = Effect.runSync(Deferred.make<void>())
      const lock = await lockOf()
      const held = Effect.runPromise(lock.around(Effect.zipRight(Deferred.succeed(taken, undefined), Deferred.await(release))))
      await Effect.runPromise(Deferred.await(taken))
      const remembered = b.run(["remember", "the billing queue drains in about ninety seconds", "--bundle", "kb", "--format", "json"], { env })
      expect(await Promise.race([remembered.then(() => "done"), sleep(3000).then(() => "waiting")])).toBe("waiting")
      Effect.runSync(Deferred.succeed(release, undefined))
      await held
      const result = await remembered
      expect(result.code, result.stderr).toBe(0)
      expect(result.json().status).toBe("accepted")
      expect(existsSync(result.json().path)).toBe(true)
    }, 60_000)

    it("remembers through both servers at once all land", async () => {
      const runs = Array.from({ length: 4 }, (_, i) => (i % 2 === 0 ? a : b).run(["remember", `shift ${i} restarts pump ${i} at dawn`, "--bundle", "kb", "--format", "json"], { env }))
      const results = await Promise.all(runs)
      for (const r of results) expect(r.code, r.stderr).toBe(0)
      const paths = results.map((r) => r.json().path as string)
      expect(new Set(paths).size).toBe(4)
      for (const p of paths) expect(existsSync(p)).toBe(true)
    }, 60_000)
  })
})
