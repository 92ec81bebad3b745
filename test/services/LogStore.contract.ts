import { trustedText } from "../../src/domain/Redaction.js"
import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, TestClock, type Layer } from "effect"
import { LogStore } from "../../src/services/LogStore.js"

/**
 * R-ARCH-5: every LogStore layer passes this suite. The layer is shared by
 * all cases, so each case logs under runs of its own.
 */
let runCounter = 0
const freshRun = (): string => `run-${++runCounter}`

export const logStoreContract = (name: string, layer: Layer.Layer<LogStore, unknown>) =>
  layer_(layer)(`LogStore contract: ${name}`, (it) => {
    it.effect("init reports the applied migrations and a clean integrity check", () =>
      Effect.gen(function* () {
        const store = yield* LogStore
        const status = yield* store.init
        expect(status.migrations.length).toBeGreaterThan(0)
        expect(status.integrity).toBe("ok")
        expect(yield* store.init).toEqual(status)
      }))

    it.effect("lines returns one run's lines in the order they were appended", () =>
      Effect.gen(function* () {
        const store = yield* LogStore
        const run = freshRun()
        const other = freshRun()
        yield* store.append(run, "info", trustedText("started"))
        yield* store.append(other, "error", trustedText("elsewhere"))
        yield* store.append(run, "warn", trustedText("slow step"))
        yield* store.append(run, "debug", trustedText("finished"))

        const lines = yield* store.lines(run)
        expect(lines.map((line) => [line.run, line.level, line.message])).toEqual([
          [run, "info", "started"],
          [run, "warn", "slow step"],
          [run, "debug", "finished"]
        ])
        expect(lines[1]!.id).toBeGreaterThan(lines[0]!.id)
        expect(Number.isNaN(Date.parse(lines[0]!.at))).toBe(false)
        expect((yield* store.lines(run, { limit: 2 })).map((line) => line.message)).toEqual(["started", "slow step"])
        expect(yield* store.lines(freshRun())).toEqual([])
      }))

    it.effect("purge keeps lines younger than the retention", () =>
      Effect.gen(function* () {
        const store = yield* LogStore
        const run = freshRun()
        yield* store.append(run, "info", trustedText("recent"))
        expect(yield* store.purge(90)).toBe(0)
        expect((yield* store.lines(run)).map((line) => line.message)).toEqual(["recent"])
      }))

    // Last: it moves the shared TestClock forward, past the other cases' lines.
    it.effect("a line's time comes from Clock (here the TestClock)", () =>
      Effect.gen(function* () {
        const store = yield* LogStore
        const run = freshRun()
        yield* TestClock.setTime(Date.parse("2031-02-03T04:05:06.007Z"))
        yield* store.append(run, "info", trustedText("at a fixed time"))
        expect((yield* store.lines(run))[0]!.at).toBe("2031-02-03T04:05:06.007Z")
      }))
  })
