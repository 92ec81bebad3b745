import { trustedText } from "../../src/domain/Redaction.js"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as path from "node:path"
import { Effect, Layer, TestClock } from "effect"
import { LogStoreMemory, makeLogStore } from "../../src/layers/sqlite/LogStoreSqlite.js"
import { LogStore } from "../../src/services/LogStore.js"
import { logStoreContract } from "../services/LogStore.contract.js"
import { tempDir } from "./tempDir.js"

const logsInTempFile = Layer.scoped(LogStore, Effect.flatMap(tempDir("logs"), (dir) => makeLogStore(path.join(dir, "logs.db"))))

logStoreContract("sqlite file", logsInTempFile)
logStoreContract("sqlite :memory:", LogStoreMemory)

/** The TestClock's "now" for the purge case: retention is measured from Clock, not the wall clock. */
const NOW = Date.parse("2026-06-01T12:00:00.000Z")
const daysAgo = (days: number): string => new Date(NOW - days * 86_400_000).toISOString()

describe("LogStoreSqlite", () => {
  it.scoped("purge removes exactly the lines older than the retention", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("logs-purge"), "logs.db")
      const store = yield* makeLogStore(file)
      yield* TestClock.setTime(NOW)
      yield* store.append("run-1", "info", trustedText("today"))

      // Backdated lines, written as another process would.
      const db = new Database(file)
      try {
        const insert = db.prepare("INSERT INTO lines (at, run, level, message) VALUES (?, ?, ?, ?)")
        insert.run(daysAgo(120), "run-1", "info", "four months old")
        insert.run(daysAgo(91), "run-2", "warn", "just past retention")
        insert.run(daysAgo(89), "run-1", "error", "just inside retention")
      } finally {
        db.close()
      }

      expect(yield* store.purge(90)).toBe(2)
      expect((yield* store.lines("run-1")).map((line) => line.message)).toEqual(["today", "just inside retention"])
      expect(yield* store.lines("run-2")).toEqual([])
      expect(yield* store.purge(90)).toBe(0)
    }))
})
