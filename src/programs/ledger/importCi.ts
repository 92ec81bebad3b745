import { Effect } from "effect"
import type { FailureObservation } from "../../domain/ledger/FailureObservation.js"
import { readCiReport } from "./ciReport.js"
import { resolveProjectBundle } from "./projectBundle.js"
import { recordFailureOccurrence } from "./record.js"
import { ledgerRedactor } from "./write.js"

export interface ImportCiInput {
  readonly file: string
  readonly bundle?: string | undefined
  readonly cwd: string
  readonly home: string
  /** A seam for tests; the shipped limit is 50 MiB. */
  readonly maxBytes?: number | undefined
}

/** One failure of the report and what it did to the ledger. */
export interface ImportedFailure {
  readonly id: string
  readonly date: string
  readonly module: string
  readonly operation: string
  readonly errorClass: string
  /** A new failure record (else a `ci` occurrence on an existing one). */
  readonly created: boolean
  /** False when the same sighting was already recorded (a report imported twice counts once). */
  readonly changed: boolean
  readonly occurrences: number
}

export interface ImportCiResult {
  readonly bundle: string
  readonly file: string
  readonly format: "junit" | "tsv"
  /** Testcases (JUnit) or rows (TSV) read. */
  readonly seen: number
  readonly created: number
  readonly appended: number
  readonly unchanged: number
  readonly failures: ReadonlyArray<ImportedFailure>
}

const NOTE_LIMIT = 200

/**
 * The sighting's note: the test and the first line of its message. Stable for
 * one report, so importing it again adds nothing; another day's run is another sighting.
 */
const noteOf = (o: FailureObservation): string => {
  const first = o.message.split("\n").map((line) => line.trim()).find((line) => line !== "") ?? o.errorClass
  const note = `CI: ${o.operation} — ${first}`
  return note.length <= NOTE_LIMIT ? note : `${note.slice(0, NOTE_LIMIT - 1)}…`
}

/**
 * `akm ledger import-ci <junit.xml|file.tsv>` (spec 08 §2, R-LED-4): each
 * failing testcase or row is a `ci` sighting, upserted by fingerprint — a hit
 * appends a `ci` occurrence, a miss creates a failure record whose symptom is
 * the report's message. The report is read and checked whole first, so a bad
 * file writes nothing.
 */
export const importCi = Effect.fn("ledger.importCi")(function* (input: ImportCiInput) {
  const target = yield* resolveProjectBundle(input)
  const report = yield* readCiReport(input)
  const { redact } = yield* ledgerRedactor(target)
  const failures: Array<ImportedFailure> = []
  for (const observation of report.observations) {
    const written = yield* recordFailureOccurrence({
      bundle: target.name,
      cwd: input.cwd,
      fields: { module: observation.module, operation: observation.operation, error_class: observation.errorClass, symptom: observation.message },
      source: "ci",
      date: observation.date,
      note: noteOf(observation)
    })
    failures.push({
      id: written.id,
      date: observation.date,
      module: redact(observation.module),
      operation: redact(observation.operation),
      errorClass: redact(observation.errorClass),
      created: written.created,
      changed: written.changed,
      occurrences: written.occurrences
    })
  }
  return {
    bundle: target.name,
    file: report.file,
    format: report.format,
    seen: report.seen,
    created: failures.filter((f) => f.created).length,
    appended: failures.filter((f) => !f.created && f.changed).length,
    unchanged: failures.filter((f) => !f.changed).length,
    failures
  } satisfies ImportCiResult as ImportCiResult
})
