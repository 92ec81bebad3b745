import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import { tempDir } from "../../layers/tempDir.js"
import { MAX_CI_REPORT_BYTES, readCiReport } from "../../../src/programs/ledger/ciReport.js"

const fixtures = path.join(import.meta.dirname, "../../fixtures/ledger-ci")
const read = (file: string, maxBytes?: number) => readCiReport({ file, cwd: fixtures, home: fixtures, maxBytes })
const failure = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") throw new Error("expected a typed failure")
  return exit.cause.error
}

describe("readCiReport (ledger import-ci)", () => {
  it.effect("a JUnit report with one failing test gives one ci observation", () =>
    Effect.gen(function* () {
      const report = yield* read("one-failure.xml")
      expect(report).toMatchObject({ format: "junit", seen: 3, file: path.join(fixtures, "one-failure.xml") })
      expect(report.observations).toMatchObject([{ module: "src/db", operation: "migrate src/db/0042.sql:17", errorClass: "LockTimeout", date: "2026-11-30", source: "ci" }])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live("a testcase without a suite timestamp is dated by the file's modification day", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("ci")
      const file = path.join(dir, "r.xml")
      fs.writeFileSync(file, '<testsuite><testcase classname="m" name="t"><failure type="E"/></testcase></testsuite>')
      fs.utimesSync(file, new Date("2026-10-05T12:00:00Z"), new Date("2026-10-05T12:00:00Z"))
      expect((yield* read(file)).observations[0]!.date).toBe("2026-10-05")
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))

  it.effect("a .tsv file is the TSV form; bad lines fail the whole file naming each line", () =>
    Effect.gen(function* () {
      expect(yield* read("report.tsv")).toMatchObject({ format: "tsv", seen: 2 })
      const error = failure(yield* Effect.exit(read("bad.tsv")))
      expect(error).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("bad.tsv has 3 bad lines; nothing was imported") })
      expect(error.message).toContain("bad.tsv:2: '30/11/2026' is not an ISO date")
      expect(error.message).toContain("bad.tsv:4: module is empty")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a file that is not XML names the file, line and column; XML that is not JUnit names its root; a missing file is a usage error", () =>
    Effect.gen(function* () {
      expect(failure(yield* Effect.exit(read("not-xml.xml")))).toMatchObject({ _tag: "UsageError", message: expect.stringMatching(/^not-xml\.xml is not XML: not-xml\.xml:1:1: /) })
      expect(failure(yield* Effect.exit(read("broken.xml")))).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("broken.xml:5:") })
      expect(failure(yield* Effect.exit(read("not-junit.xml")))).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("its root element is <project>") })
      expect(failure(yield* Effect.exit(read("missing.xml")))).toMatchObject({ _tag: "UsageError", message: "cannot read missing.xml: no such file or directory" })
      expect(failure(yield* Effect.exit(read(".")))).toMatchObject({ _tag: "UsageError", message: "cannot read .: not a regular file" })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live("a report over 50 MiB is refused by its size before it is read, naming size and limit", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("ci")
      const file = path.join(dir, "huge.xml")
      // A sparse file: 50 MiB + 1 byte on paper, nothing on disk.
      fs.writeFileSync(file, "")
      fs.truncateSync(file, MAX_CI_REPORT_BYTES + 1)
      const error = failure(yield* Effect.exit(read(file)))
      expect(error).toMatchObject({ _tag: "UsageError", message: `${file} is 50.0 MiB (52428801 bytes), over the limit of 50 MiB for CI reports` })
      expect(error.hint).toContain("split the report")
      // The seam: the same rule at a lowered limit, on a real report.
      expect(failure(yield* Effect.exit(read("one-failure.xml", 100)))).toMatchObject({ _tag: "UsageError", message: expect.stringMatching(/^one-failure\.xml is \d+ bytes, over the limit of 100 bytes for CI reports$/) })
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))
})
