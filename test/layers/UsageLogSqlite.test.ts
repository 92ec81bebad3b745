import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { makeStateStore } from "../../src/layers/sqlite/StateStoreSqlite.js"
import { StateDbMemory } from "../../src/layers/sqlite/StateDb.js"
import { UsageLogConnectionLayer } from "../../src/layers/sqlite/UsageLogConnection.js"
import { makeUsageLog, UsageLogSqlite } from "../../src/layers/sqlite/UsageLogSqlite.js"
import { UsageLog } from "../../src/services/UsageLog.js"
import { usageLogContract } from "../services/UsageLog.contract.js"
import { tempDir } from "./tempDir.js"

const usageInTempFile = Layer.scoped(UsageLog, Effect.flatMap(tempDir("usage"), (dir) => makeUsageLog(path.join(dir, "state.db"))))

usageLogContract("sqlite file", usageInTempFile)
usageLogContract("sqlite :memory: over StateDb", UsageLogSqlite.pipe(Layer.provide(StateDbMemory)))

/** The search fast path's layer: a plain better-sqlite3 connection to a state.db the full layer created and migrated. */
const usageOnConnection = Layer.unwrapScoped(
  Effect.gen(function* () {
    const file = path.join(yield* tempDir("usage-connection"), "state.db")
    yield* Effect.scoped(Effect.flatMap(makeUsageLog(file), (usage) => usage.utilities))
    return UsageLogConnectionLayer(file)
  })
)
usageLogContract("sqlite file, plain connection (search fast path)", usageOnConnection)

describe("UsageLogSqlite", () => {
  it.scoped("feedback and utility are durable in state.db, next to the event log (one migration history)", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("usage-durable"), "state.db")
      yield* Effect.scoped(Effect.flatMap(makeUsageLog(file), (usage) => usage.recordFeedback({ ref: "notes//a", polarity: "positive", source: "user" })))
      const usage = yield* makeUsageLog(file)
      expect((yield* usage.feedback({})).map((f) => f.ref)).toEqual(["notes//a"])
      expect(yield* usage.utility("notes//a")).toBeGreaterThan(0.5)
      const status = yield* (yield* makeStateStore(file)).init
      expect(status.migrations.slice(0, 2)).toEqual(["0001_events", "0002_usage_feedback"])
    }))
})
