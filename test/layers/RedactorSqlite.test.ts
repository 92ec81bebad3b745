import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { lazyConnection } from "../../src/layers/sqlite/connection.js"
import { redactorOn } from "../../src/layers/sqlite/redactor.js"
import { RedactorSqlite } from "../../src/layers/sqlite/RedactorSqlite.js"
import { StateDbLive, StateDbMemory } from "../../src/layers/sqlite/StateDb.js"
import { WorkspaceConfigTemp } from "../../src/layers/test/AkmTest.js"
import { Redactor } from "../../src/services/Redactor.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { readRows } from "../support/readDatabase.js"
import { redactorContract } from "../services/Redactor.contract.js"

/** A Redactor over a real state.db file and key file in a temp workspace; `fresh` builds a second one over the same files (another process). */
const workspaceLayer = Layer.provideMerge(StateDbLive, WorkspaceConfigTemp)
const redactorOver = <A, E>(body: Effect.Effect<A, E, Redactor | WorkspaceConfig>) =>
  body.pipe(Effect.provide(Layer.provideMerge(RedactorSqlite, workspaceLayer)))

const fresh = <A, E>(body: Effect.Effect<A, E, Redactor>) =>
  Effect.flatMap(WorkspaceConfig, (workspace) =>
    body.pipe(Effect.provide(RedactorSqlite.pipe(Layer.provide(StateDbLive), Layer.provide(Layer.succeed(WorkspaceConfig, workspace))))))

const CANARY = "canary-Value-7f3e-PLANTED"

redactorContract("state.db file", Layer.provideMerge(RedactorSqlite, workspaceLayer))
redactorContract("state.db :memory:", RedactorSqlite.pipe(Layer.provide(StateDbMemory), Layer.provide(WorkspaceConfigTemp)))

/** The search fast path's Redactor (layers/SearchLive.ts): redactor.ts's statements on a plain connection to a state.db the full layer migrated. */
const redactorOnConnection = Layer.scoped(
  Redactor,
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    yield* Effect.flatMap(Redactor, (r) => r.retainSources([])).pipe(Effect.provide(RedactorSqlite.pipe(Layer.provide(StateDbLive), Layer.provide(Layer.succeed(WorkspaceConfig, workspace)))))
    const connection = yield* Effect.acquireRelease(Effect.sync(() => lazyConnection(workspace.paths.stateDb)), (c) => Effect.sync(c.close))
    return redactorOn(workspace.paths.stateDb, connection.driver, workspace)
  })
).pipe(Layer.provide(WorkspaceConfigTemp))
redactorContract("state.db file, plain connection (search fast path)", redactorOnConnection)

describe("RedactorSqlite", () => {
  it.effect("stored values are redacted as [redacted:env]; state.db holds only digests; the key file is 0600 and made on first store", () =>
    redactorOver(Effect.gen(function* () {
      const redactor = yield* Redactor
      const { paths } = yield* WorkspaceConfig
      const keyFile = path.join(paths.dataDir, "redactor.key")
      expect(yield* redactor.redact(`say ${CANARY}`)).toBe(`say ${CANARY}`)
      expect(fs.existsSync(keyFile)).toBe(false)

      expect(yield* redactor.storeValues("env-bundle", [CANARY, CANARY, "short"])).toBe(1)
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600)
      expect(fs.statSync(keyFile).size).toBe(32)
      expect(yield* redactor.redact(`say ${CANARY}!`)).toBe("say [redacted:env]!")
      expect((yield* redactor.snapshot)(`x${CANARY}`)).toBe("x[redacted:env]")

      const rows = readRows<{ source: string; hmac: string; length: number }>(paths.stateDb, "SELECT source, hmac, length FROM redactor_values")
      expect(rows).toEqual([{ source: "env-bundle", hmac: expect.stringMatching(/^[0-9a-f]{64}$/), length: CANARY.length }])
      yield* Effect.sync(() => {
        for (const file of fs.readdirSync(paths.dataDir)) expect(fs.readFileSync(path.join(paths.dataDir, file)).includes(CANARY), file).toBe(false)
      })

      // Another process over the same files finds the value with the same key.
      expect(yield* fresh(Effect.flatMap(Redactor, (r) => r.redact(CANARY)))).toBe("[redacted:env]")
    })))

  it.effect("a source's values are replaced on each store, and sources no longer kept are forgotten", () =>
    redactorOver(Effect.gen(function* () {
      const redactor = yield* Redactor
      yield* redactor.storeValues("a", ["first-value-aaa", "shared-value-s"])
      yield* redactor.storeValues("b", ["second-value-bbb", "shared-value-s"])
      yield* redactor.storeValues("a", ["third-value-ccc"])
      expect(yield* redactor.redact("first-value-aaa third-value-ccc second-value-bbb shared-value-s"))
        .toBe("first-value-aaa [redacted:env] [redacted:env] [redacted:env]")
      yield* redactor.retainSources(["a"])
      expect(yield* redactor.redact("third-value-ccc second-value-bbb")).toBe("[redacted:env] second-value-bbb")
      yield* redactor.retainSources([])
      expect(yield* redactor.redact("third-value-ccc")).toBe("third-value-ccc")
    })))

  it.effect("sensitive.allow from config.yaml is honoured; patterns apply without any stored value; capped text stays capped", () =>
    redactorOver(Effect.gen(function* () {
      const { paths } = yield* WorkspaceConfig
      fs.mkdirSync(path.dirname(paths.configFile), { recursive: true })
      fs.writeFileSync(paths.configFile, "sensitive:\n  allow:\n    - DEMO_TOKEN=docs-example-0001\n")
      const redactor = yield* Redactor
      expect(yield* redactor.redact("DEMO_TOKEN=docs-example-0001 REAL_TOKEN=real-secret-0002"))
        .toBe("DEMO_TOKEN=docs-example-0001 REAL_TOKEN=[redacted:secret]")
      const capped = yield* redactor.redactCapped(`${"q".repeat(2000)} ghp_FAKEfake0000TESTtest1111EXAMPLE2222xy`, 1024)
      expect(capped).toHaveLength(1024)
    })))

  it.effect("an invalid config or a missing key never makes redaction fail", () =>
    redactorOver(Effect.gen(function* () {
      const { paths } = yield* WorkspaceConfig
      fs.mkdirSync(path.dirname(paths.configFile), { recursive: true })
      fs.writeFileSync(paths.configFile, "sensitive: [not, a, map\n")
      const redactor = yield* Redactor
      expect(yield* redactor.redact("GITHUB_TOKEN=faketoken0123456789")).toBe("GITHUB_TOKEN=[redacted:secret]")
    })))
})
