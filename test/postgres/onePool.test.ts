import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { trustedText } from "../../src/domain/Redaction.js"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { BundleWriteLock } from "../../src/services/BundleWriteLock.js"
import { EvidenceStore } from "../../src/services/EvidenceStore.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { StateStore } from "../../src/services/StateStore.js"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { adminStatement, postgresSuites, TEST_DATABASE_URL } from "./pgTestDb.js"

/**
 * One process, one pool per database (decision 0042): in team mode the state
 * stores (evidence included), the index and the bundle write lock all run on
 * PgStateDb's client.
 * Counted from the server's side: the backends connected under this suite's
 * application_name.
 */
postgresSuites("one connection pool per process in team mode", () => {
  describe("one connection pool per process in team mode", () => {
    const schema = `akm_t_pool_${process.pid}_${Date.now()}`
    const application = `akm_pool_${process.pid}`
    const variable = `AKM_T_POOL_URL_${process.pid}`
    let workspace: Workspace

    beforeAll(async () => {
      await adminStatement(`CREATE SCHEMA ${schema}`)
      const url = new URL(TEST_DATABASE_URL!)
      url.searchParams.set("options", `-c search_path=${schema}`)
      url.searchParams.set("application_name", application)
      process.env[variable] = url.toString()
      workspace = makeWorkspace()
      expect((await workspace.run(["init"])).code).toBe(0)
      writeFileSync(join(workspace.configDir, "config.yaml"), `storage:\n  kind: postgres\n  url: env:${variable}\n`, { flag: "a" })
    })
    afterAll(async () => {
      delete process.env[variable]
      workspace?.cleanup()
      await adminStatement(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    })

    const backends = async () =>
      Number((await adminStatement<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = '${application}'`))[0]!.n)

    it("state, index and the bundle write lock share one pool: used one after another, they hold one backend", async () => {
      const runtime = ManagedRuntime.make(makeAkmLive({ configDir: workspace.configDir, dataDir: workspace.dataDir, cacheDir: workspace.cacheDir, quiet: true }))
      try {
        await runtime.runPromise(Effect.gen(function* () {
          const state = yield* StateStore
          const index = yield* IndexStore
          const lock = yield* BundleWriteLock
          yield* state.appendEvent("pool.check", trustedText("pool"))
          yield* index.counts
          // The lock holds its own connection of the pool while the write runs: nothing else is used inside it here.
          yield* lock.around(Effect.void)
          yield* index.bundles
          yield* state.events({ subject: "pool" })
          // Evidence follows storage.kind as well (decision 0042): the row lands in the team database.
          yield* (yield* EvidenceStore).add([{ kind: "negative-feedback", source: "feedback", ref: "kb//pool", note: "pool check" }])
        }))
        // Two pools would each keep an idle backend here (the index's and the state's); one pool reuses its one.
        expect(await backends()).toBe(1)
        expect(await adminStatement<{ ref: string }>(`SELECT ref FROM ${schema}.evidence`)).toEqual([{ ref: "kb//pool" }])
      } finally {
        await runtime.dispose()
      }
      expect(await backends()).toBe(0)
    })
  })
})
