import { FileSystem } from "@effect/platform/FileSystem"
import { Clock, Effect } from "effect"
import * as path from "node:path"
import { UsageError } from "../../domain/Errors.js"
import { expandUserPath } from "../../domain/Paths.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { parseCiTsv } from "../../domain/ledger/ciTsv.js"
import { dayOf, type FailureObservation, type InputProblem } from "../../domain/ledger/FailureObservation.js"
import { parseJunit } from "../../domain/ledger/junit.js"
import { fileProblem } from "../fileProblem.js"

/** Reports larger than this are refused before a byte is read (issue: JUnit files up to 50 MiB). */
export const MAX_CI_REPORT_BYTES = 50 * 1024 * 1024

export interface CiReport {
  readonly file: string
  readonly format: "junit" | "tsv"
  /** Testcases in a JUnit report; rows in a TSV one. */
  readonly seen: number
  readonly observations: ReadonlyArray<FailureObservation>
}

export interface CiReportInput {
  readonly file: string
  readonly cwd: string
  readonly home: string
  /** A seam for tests; the shipped limit is MAX_CI_REPORT_BYTES. */
  readonly maxBytes?: number | undefined
}

const MIB = 1024 * 1024
const sizeText = (bytes: number) => (bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB (${bytes} bytes)` : `${bytes} bytes`)

const MAX_LISTED = 10
const listProblems = (file: string, problems: ReadonlyArray<InputProblem>): string =>
  [
    ...problems.slice(0, MAX_LISTED).map((p) => `${file}:${p.line}${p.column === undefined ? "" : `:${p.column}`}: ${p.message}`),
    ...(problems.length > MAX_LISTED ? [`… and ${problems.length - MAX_LISTED} more`] : [])
  ].join("\n")

/**
 * `ledger import-ci <file>`: a CI report → failure observations, read whole or
 * not at all. `.tsv`/`.tab` files are the TSV form, anything else JUnit XML. A
 * testcase without a suite timestamp is dated by the file's modification day.
 */
export const readCiReport = Effect.fn("ledger.readCiReport")(function* (input: CiReportInput) {
  const fs = yield* FileSystem
  const file = expandUserPath(input.file, input.cwd, input.home)
  const name = input.file
  const unreadable = (reason: string) => new UsageError({ message: `cannot read ${name}: ${reason}`, hint: "give a JUnit XML report or a .tsv file" })
  const info = yield* fs.stat(file).pipe(Effect.mapError((e) => unreadable(fileProblem(e))))
  if (info.type !== "File") return yield* unreadable("not a regular file")
  const limit = input.maxBytes ?? MAX_CI_REPORT_BYTES
  const size = Number(info.size)
  if (size > limit) {
    return yield* new UsageError({
      message: `${name} is ${sizeText(size)}, over the limit of ${limit >= MIB ? `${(limit / MIB).toFixed(0)} MiB` : `${limit} bytes`} for CI reports`,
      hint: "split the report (one file per suite), or export only the failures as TSV"
    })
  }
  const bytes = yield* fs.readFile(file).pipe(Effect.mapError((e) => unreadable(fileProblem(e))))
  const text = bytes.includes(0) ? undefined : decodeUtf8(bytes)
  if (text === undefined) return yield* unreadable("it is not UTF-8 text")
  const now = yield* Clock.currentTimeMillis
  const modified = info.mtime._tag === "Some" ? info.mtime.value.getTime() : now
  const origin = path.basename(file)
  if (/\.(?:tsv|tab)$/i.test(file)) {
    const tsv = parseCiTsv(text, origin)
    if (tsv._tag === "BadLines") {
      return yield* new UsageError({
        message: `${name} has ${tsv.problems.length} bad line${tsv.problems.length === 1 ? "" : "s"}; nothing was imported:\n${listProblems(name, tsv.problems)}`,
        hint: "each line is date, module, operation, error_class, message separated by tabs (an optional header row names them)"
      })
    }
    return { file, format: "tsv", seen: tsv.observations.length, observations: tsv.observations } satisfies CiReport as CiReport
  }
  const junit = parseJunit(text, origin, dayOf(modified))
  if (junit._tag === "NotXml") {
    return yield* new UsageError({
      message: `${name} is not XML: ${listProblems(name, [junit.problem])}`,
      hint: "import-ci reads JUnit XML reports, or the TSV form from a file ending in .tsv"
    })
  }
  if (junit._tag === "NotJunit") {
    return yield* new UsageError({
      message: `${name} is XML but not a JUnit report (its root element is <${junit.root}>, not <testsuites> or <testsuite>)`,
      hint: "give the JUnit XML your test runner writes (e.g. vitest --reporter=junit, pytest --junitxml, Surefire's TEST-*.xml)"
    })
  }
  return { file, format: "junit", seen: junit.testcases, observations: junit.observations } satisfies CiReport as CiReport
})
