import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { configGet, configList, configPath, configSet, configUnset } from "../../src/programs/config.js"
import { info } from "../../src/programs/info.js"
import { init } from "../../src/programs/init.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"

const failureTag = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) && exit.cause._tag === "Fail" ? (exit.cause.error as { _tag: string })._tag : undefined)

describe("init and info", () => {
  it.effect("info before init creates nothing; init is idempotent", () =>
    Effect.gen(function* () {
      const workspace = yield* WorkspaceConfig
      const before = yield* info({ version: "9.9.9" })
      expect(before.version).toBe("9.9.9")
      expect(before.databases.state.exists).toBe(false)
      expect(fs.existsSync(workspace.paths.configFile)).toBe(false)
      const first = yield* init()
      expect(first.configCreated).toBe(true)
      expect(first.databases.state.integrity).toBe("ok")
      const second = yield* init()
      expect(second.configCreated).toBe(false)
      for (const dir of [workspace.paths.dataDir, workspace.paths.cacheDir, workspace.paths.locksDir, workspace.paths.txnDir, workspace.paths.archiveDir]) {
        expect(fs.statSync(dir).isDirectory()).toBe(true)
      }
    }).pipe(Effect.provide(AkmTest)))
})

describe("config programs", () => {
  it.effect("set parses YAML values, get reads them back, unset removes them", () =>
    Effect.gen(function* () {
      yield* configSet("search.limit", "30")
      expect(yield* configGet("search.limit")).toEqual({ key: "search.limit", value: 30 })
      yield* configSet("website.allowHosts", "[127.0.0.1, localhost]")
      expect((yield* configGet("website.allowHosts")).value).toEqual(["127.0.0.1", "localhost"])
      yield* configUnset("search.limit")
      expect(failureTag(yield* Effect.exit(configGet("search.limit")))).toBe("NotFound")
      expect((yield* configList()).config.website?.allowHosts).toEqual(["127.0.0.1", "localhost"])
      expect((yield* configPath()).exists).toBe(true)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("an invalid value is refused and the file stays as it was", () =>
    Effect.gen(function* () {
      const workspace = yield* WorkspaceConfig
      yield* configSet("search.limit", "30")
      const before = fs.readFileSync(workspace.paths.configFile, "utf8")
      expect(failureTag(yield* Effect.exit(configSet("search.limit", "lots")))).toBe("ConfigInvalid")
      expect(failureTag(yield* Effect.exit(configSet("serach.limit", "3")))).toBe("ConfigInvalid")
      expect(failureTag(yield* Effect.exit(configSet("search..limit", "3")))).toBe("UsageError")
      expect(fs.readFileSync(workspace.paths.configFile, "utf8")).toBe(before)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("set keeps the user's comments and key order (R-WS-5)", () =>
    Effect.gen(function* () {
      const workspace = yield* WorkspaceConfig
      fs.mkdirSync(workspace.paths.configDir, { recursive: true })
      const original = "# my workspace\nsearch:\n  limit: 10 # keep short\n# hosts for tests\nwebsite:\n  allowHosts: [a]\n"
      fs.writeFileSync(workspace.paths.configFile, original)
      yield* configSet("search.limit", "25")
      expect(fs.readFileSync(workspace.paths.configFile, "utf8")).toBe(original.replace("limit: 10", "limit: 25"))
    }).pipe(Effect.provide(AkmTest)))
})
