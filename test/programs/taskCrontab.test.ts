import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { blockAliases, blockId, type CrontabEntry } from "../../src/domain/CrontabBlock.js"
import { crontabFile } from "../../src/layers/runtime/CrontabFile.js"
import { writeEntries } from "../../src/programs/runtime/task.js"
import { Crontab } from "../../src/services/Crontab.js"
import { tempDir } from "../layers/tempDir.js"

const DATA = "/tmp/ws/data"
const entry: CrontabEntry = { alias: "nightly", ref: "mine//tasks/nightly", digest: "f".repeat(64), schedule: "0 3 * * *", command: "akm task run nightly --scheduled" }

/** The file layer, with another writer that changes the file after akm's first `times` reads. */
const racing = (file: string, times: number) => {
  const inner = crontabFile(file)
  let reads = 0
  return Layer.succeed(Crontab, Crontab.of({
    ...inner,
    read: Effect.tap(inner.read, () => Effect.sync(() => {
      if (reads++ < times) fs.appendFileSync(file, `0 ${reads} * * * other-writer-${reads}\n`)
    }))
  }))
}

describe("task: writing akm's block (spec 07 §3)", () => {
  it("a crontab changed by another writer between read and write is read again, never clobbered", () =>
    Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const file = path.join(yield* tempDir("task-race"), "crontab")
      fs.writeFileSync(file, "0 0 * * * mine\n")
      const result = yield* writeEntries([entry], DATA).pipe(Effect.provide(racing(file, 2)))
      expect(result.written).toBe(true)
      const text = fs.readFileSync(file, "utf8")
      expect(text.startsWith("0 0 * * * mine\n0 1 * * * other-writer-1\n0 2 * * * other-writer-2\n# BEGIN akm tasks")).toBe(true)
      expect(Either.getOrThrow(blockAliases(text, blockId(DATA)))).toEqual(["nightly"])
    }))))

  it("a crontab that keeps changing is given up on with a clear error; the other writer's text stays", () =>
    Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const file = path.join(yield* tempDir("task-race-forever"), "crontab")
      const error = yield* Effect.flip(writeEntries([entry], DATA).pipe(Effect.provide(racing(file, 100))))
      expect(error.message).toMatch(/kept changing while akm edited it; nothing was written/)
      expect(fs.readFileSync(file, "utf8")).not.toContain("BEGIN akm tasks")
    }))))
})
