import { Effect } from "effect"
import { fieldText, occurrenceDates, type LedgerRecord } from "../../domain/ledger/index.js"
import { findRecord } from "./record.js"
import { resolveProjectBundle } from "./projectBundle.js"
import { loadLedger } from "./store.js"

/** One row of `akm ledger list`. */
export interface LedgerRow {
  readonly kind: string
  readonly id: string
  readonly title: string
  /** Bundle-relative path of the record file. */
  readonly path: string
  readonly module?: string
  readonly fingerprint?: string
  readonly occurrences: number
  /** Distinct sighting dates, oldest first. */
  readonly dates: ReadonlyArray<string>
  readonly sources: ReadonlyArray<string>
}

export interface LedgerListInput {
  readonly bundle?: string | undefined
  readonly cwd?: string | undefined
  readonly kind?: string | undefined
  /** Only records seen at least twice. */
  readonly recurring?: boolean | undefined
}

export interface LedgerList {
  readonly bundle: string
  readonly root: string
  readonly records: ReadonlyArray<LedgerRow>
  /** Files that could not be read as records (`akm ledger verify` explains each). */
  readonly unreadable: ReadonlyArray<{ readonly path: string; readonly line: number; readonly message: string }>
}

export const rowOf = (path: string, record: LedgerRecord): LedgerRow => {
  const module = fieldText(record, "module")
  return {
    kind: record.kind,
    id: record.id,
    title: record.title,
    path,
    ...(module === undefined ? {} : { module }),
    ...(record.fingerprint === undefined ? {} : { fingerprint: record.fingerprint }),
    occurrences: record.occurrences.length,
    dates: occurrenceDates(record),
    sources: [...new Set(record.occurrences.map((o) => o.source))]
  }
}

/** `akm ledger list`: the records, most sightings first, then by kind and id. */
export const listLedger = Effect.fn("ledger.list")(function* (input: LedgerListInput = {}) {
  const target = yield* resolveProjectBundle(input)
  const loaded = yield* loadLedger(target.root, input.kind === undefined ? undefined : [input.kind])
  const records = loaded
    .flatMap((l) => (l._tag === "Ok" ? [rowOf(l.file.path, l.record)] : []))
    .filter((r) => input.recurring !== true || r.occurrences >= 2)
    .sort((a, b) => b.occurrences - a.occurrences || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id))
  const unreadable = loaded.flatMap((l) => (l._tag === "Bad" ? [{ path: l.file.path, line: l.problem.line, message: l.problem.message }] : []))
  return { bundle: target.name, root: target.root, records, unreadable } satisfies LedgerList as LedgerList
})

/** `akm ledger show <id>`: one record, parsed, with its file text. */
export const showLedgerRecord = Effect.fn("ledger.show")(function* (input: { readonly id: string; readonly bundle?: string | undefined; readonly cwd?: string | undefined }) {
  const target = yield* resolveProjectBundle(input)
  const { file, record } = yield* findRecord(target, input.id)
  return { bundle: target.name, path: `${target.root}/${file.path}`, row: rowOf(file.path, record), record, text: file.text }
})
