import { Effect, Either, Schedule } from "effect"
import { Conflict, NotFound, UsageError } from "../../domain/Errors.js"
import {
  fieldText,
  fingerprint,
  isLedgerKind,
  LEDGER_KINDS,
  matchesDiscriminator,
  parseRecord,
  peekFingerprint,
  recordPath,
  requiredFields,
  idSlug,
  withOccurrence,
  type FieldValue,
  type LedgerRecord,
  type Occurrence,
  type OccurrenceSource
} from "../../domain/ledger/index.js"
import type { Redacted } from "../../domain/Redaction.js"
import { search } from "../search.js"
import { resolveProjectBundle, type ProjectTarget } from "./projectBundle.js"
import { loadLedger, readLedgerFiles, type LedgerFile } from "./store.js"
import { hashAsRead, ledgerRedactor, recordChange, redactValue, renderRedacted, writeLedger } from "./write.js"

export type Fields = Readonly<Record<string, string | ReadonlyArray<string>>>

/** A record that may be the same one, found by search (R-LED-2). */
export interface Candidate {
  readonly id: string
  readonly title: string
  readonly ref: string
}

/** What a ledger write reports. */
export interface LedgerWrite {
  readonly bundle: string
  readonly kind: string
  readonly id: string
  /** Absolute path of the record file. */
  readonly path: string
  readonly fingerprint?: string
  /** A new record (false: an occurrence was appended to an existing one). */
  readonly created: boolean
  /** Whether anything was written (the same sighting twice counts once). */
  readonly changed: boolean
  readonly occurrences: number
  /** "possibly the same as": records search found for a new failure. */
  readonly candidates: ReadonlyArray<Candidate>
  /** The proposal that carried the write. */
  readonly proposal?: string
  readonly warnings: ReadonlyArray<string>
}

const FINGERPRINT_FIELDS = ["module", "operation", "error_class"] as const

/** What a failure imported without a write-up says until someone investigates. */
const NOT_YET: Readonly<Record<string, string>> = {
  symptom: "not recorded",
  trigger: "unknown (not yet investigated)",
  root_cause: "unknown (not yet investigated)",
  fix: "unknown (not yet fixed)"
}

const today = (): string => new Date().toISOString().slice(0, 10)

export const checkDate = (date: string | undefined): Effect.Effect<string, UsageError> => {
  if (date === undefined) return Effect.succeed(today())
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(date) && !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date)
  return ok ? Effect.succeed(date) : Effect.fail(new UsageError({ message: `'${date}' is not a date`, hint: "give it as YYYY-MM-DD, e.g. --date 2026-08-14" }))
}

const normaliseFields = (fields: Fields): Record<string, FieldValue> => {
  const out: Record<string, FieldValue> = {}
  for (const [raw, value] of Object.entries(fields)) {
    const key = raw.trim().toLowerCase().replace(/-/g, "_")
    out[key] = typeof value === "string" ? value.trim() : value.map((v) => v.trim())
  }
  return out
}

const text = (fields: Readonly<Record<string, FieldValue>>, key: string): string | undefined => fieldText({ fields }, key)

/** The first line of a text, at most 200 characters: an occurrence's note. */
const firstLine = (value: string | undefined): string | undefined => {
  const line = value?.split("\n").map((l) => l.trim()).find((l) => l !== "")
  return line === undefined ? undefined : line.length <= 200 ? line : `${line.slice(0, 199)}…`
}

const candidatesFor = (target: ProjectTarget, fields: Readonly<Record<string, FieldValue>>, except: string) =>
  Effect.gen(function* () {
    const query = [text(fields, "error_class"), firstLine(text(fields, "symptom")), text(fields, "module")].filter((v) => v !== undefined).join(" ")
    if (query.trim() === "") return [] as ReadonlyArray<Candidate>
    const found = yield* Effect.either(search({ query, bundles: [target.name], types: ["failure"], limit: 5, track: false, belief: "all" }))
    if (Either.isLeft(found)) return [] as ReadonlyArray<Candidate>
    return found.right.hits
      .map((hit) => ({ id: hit.ref.split("/").pop() ?? hit.ref, title: hit.name, ref: hit.ref }))
      .filter((c) => c.id !== except)
      .slice(0, 3)
  })

/** The failure file whose frontmatter fingerprint is `fp`: found without parsing any record's markdown. */
const byFingerprint = (files: ReadonlyArray<LedgerFile>, fp: string): LedgerFile | undefined =>
  files.find((f) => f.id === fp && peekFingerprint(f.text) === fp) ?? files.find((f) => peekFingerprint(f.text) === fp)

const parseOrFail = (file: LedgerFile) => {
  const parsed = parseRecord(file.text, { expect: { kind: file.kind, id: file.id } })
  return Either.isRight(parsed)
    ? Effect.succeed(parsed.right)
    : Effect.fail(new Conflict({ message: `${file.path}:${parsed.left.line}: ${parsed.left.message}`, hint: "fix the record (akm ledger verify lists every problem), then run the command again" }))
}

export interface FailureInput {
  readonly bundle?: string | undefined
  readonly cwd?: string | undefined
  readonly fields: Fields
  readonly title?: string | undefined
  readonly source: OccurrenceSource
  /** YYYY-MM-DD. */
  readonly date: string
  readonly note?: string | undefined
  /**
   * A new record needs every required field (`akm ledger add`); otherwise the
   * ones not given say "unknown (not yet investigated)" (imports, git mining).
   */
  readonly strict?: boolean | undefined
}

/**
 * Records one sighting of a failure (R-LED-1, R-LED-2, R-LED-3): the
 * fingerprint of module, operation and error_class finds the record — a split
 * record's discriminator sends a matching failure to its own fingerprint — and
 * the occurrence is appended (the same sighting twice counts once); a miss
 * creates a failure record, after searching for "possibly the same" ones.
 * Everything written passes the redactor first.
 */
const recordFailureOnce = Effect.fn("ledger.failure")(function* (input: FailureInput) {
  const target = yield* resolveProjectBundle(input)
  const date = yield* checkDate(input.date)
  const given = normaliseFields(input.fields)
  const missingKey = FINGERPRINT_FIELDS.filter((key) => text(given, key) === undefined)
  if (missingKey.length > 0) {
    return yield* new UsageError({ message: `a failure needs ${missingKey.join(", ")} for its fingerprint`, hint: "e.g. --field module=src/db --field operation=\"migrate src/db/0042.sql\" --field error_class=LockTimeout" })
  }
  const { redact, warnings } = yield* ledgerRedactor(target)
  const fields = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, redactValue(v, redact)])) as Record<string, FieldValue>
  const fpFields = { module: text(fields, "module")!, operation: text(fields, "operation")!, error_class: text(fields, "error_class")! }
  const files = yield* readLedgerFiles(target.root, ["failure"])
  let fp = fingerprint(fpFields)
  let file = byFingerprint(files, fp)
  let splitFrom: { readonly id: string; readonly discriminator: string } | undefined
  if (file !== undefined) {
    const parent = yield* parseOrFail(file)
    const discriminator = (parent.discriminators ?? []).find((d) => matchesDiscriminator(fields, d))
    if (discriminator !== undefined) {
      fp = fingerprint(fpFields, discriminator)
      file = byFingerprint(files, fp)
      splitFrom = { id: parent.id, discriminator }
    }
  }
  const note = input.note?.trim() === "" || input.note === undefined ? undefined : redact(input.note.trim())

  if (file !== undefined) {
    const record = yield* parseOrFail(file)
    // A later sighting with its own symptom keeps it as the note; the record's symptom stays as first seen.
    const symptom = firstLine(text(fields, "symptom"))
    const occurrence: Occurrence = { date, source: input.source, ...(note !== undefined ? { note } : symptom !== undefined && symptom !== firstLine(fieldText(record, "symptom")) ? { note: symptom } : {}) }
    const { record: next, added } = withOccurrence(record, occurrence)
    const base = { bundle: target.name, kind: "failure", id: record.id, path: `${target.root}/${file.path}`, fingerprint: fp, created: false, occurrences: next.occurrences.length, candidates: [], warnings }
    if (!added) return { ...base, changed: false } satisfies LedgerWrite as LedgerWrite
    const after = renderRedacted(next, redact)
    const made = yield* writeLedger(target, redact(`Ledger: ${record.title} happened again (${date})`), [recordChange(target, file.path, yield* hashAsRead(target, file), after)])
    return { ...base, changed: true, proposal: made.id } satisfies LedgerWrite as LedgerWrite
  }

  if (input.strict === true) {
    const missing = requiredFields("failure").filter((key) => text(fields, key) === undefined)
    if (missing.length > 0) {
      return yield* new UsageError({
        message: `a new failure record needs ${missing.join(", ")}`,
        hint: `give each with --field key=value (${missing.map((k) => `--field ${k}=…`).join(" ")}); the symptom as first observed`
      })
    }
  }
  const complete: Record<string, FieldValue> = { ...fields }
  for (const key of requiredFields("failure")) if (text(complete, key) === undefined) complete[key] = NOT_YET[key] ?? "unknown"
  if (text(fields, "symptom") === undefined && note !== undefined) complete["symptom"] = note
  const ordered: Record<string, FieldValue> = {}
  for (const key of requiredFields("failure")) ordered[key] = complete[key]!
  for (const [key, value] of Object.entries(complete)) if (!(key in ordered)) ordered[key] = value
  const title = redact(input.title?.trim() || `${fpFields.error_class} in ${fpFields.module}`)
  // The id is the fingerprint, unless a hand-made file already has that name.
  let id = fp
  for (let n = 2; files.some((f) => f.id === id); n++) id = `${fp}-${n}`
  const record: LedgerRecord = {
    id,
    kind: "failure",
    title,
    fingerprint: fp,
    fields: ordered,
    occurrences: [{ date, source: input.source, ...(note === undefined ? {} : { note }) }],
    sources: [input.source],
    ...(splitFrom === undefined ? {} : { meta: { split_of: splitFrom.id, discriminator: splitFrom.discriminator } })
  }
  const candidates = yield* candidatesFor(target, fields, id)
  const path = recordPath("failure", id)
  const made = yield* writeLedger(target, redact(`Ledger: ${title}`), [recordChange(target, path, null, renderRedacted(record, redact))])
  return {
    bundle: target.name,
    kind: "failure",
    id,
    path: `${target.root}/${path}`,
    fingerprint: fp,
    created: true,
    changed: true,
    occurrences: 1,
    candidates,
    proposal: made.id,
    warnings
  } satisfies LedgerWrite as LedgerWrite
})

/**
 * Another writer changed the record (or made it) between read and write: the
 * engine refused on the before-hash, so read again and append again.
 */
const againWhenStale = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.retry(effect, {
    times: STALE_RETRIES,
    // Jittered, so writers that collided once do not collide again in step.
    schedule: Schedule.jittered(Schedule.exponential("20 millis")),
    while: (error) => error._tag === "StaleBeforeHash"
  })

const STALE_RETRIES = 8

export const recordFailure = (input: FailureInput) => againWhenStale(recordFailureOnce(input))

/** The API other capture paths (CI import, git mining) use: an upserted failure sighting. */
export const recordFailureOccurrence = (input: Omit<FailureInput, "strict">) =>
  Effect.map(recordFailure({ ...input, strict: false }), (w) => ({ id: w.id, created: w.created, occurrences: w.occurrences, changed: w.changed, fingerprint: w.fingerprint!, path: w.path }))

export interface AddInput {
  readonly kind: string
  readonly bundle?: string | undefined
  readonly cwd?: string | undefined
  readonly title?: string | undefined
  readonly fields: Fields
  readonly source?: OccurrenceSource | undefined
  readonly date?: string | undefined
  readonly note?: string | undefined
}

/** `akm ledger add <kind>`: a failure is upserted by fingerprint; other kinds make a new record with every required field. */
export const addRecord = Effect.fn("ledger.add")(function* (input: AddInput) {
  const kind = input.kind.trim().toLowerCase()
  if (!isLedgerKind(kind)) {
    return yield* new UsageError({ message: `unknown ledger kind '${input.kind}'`, hint: `use one of ${LEDGER_KINDS.join(", ")}` })
  }
  const date = yield* checkDate(input.date)
  const source = input.source ?? "self-report"
  if (kind === "failure") return yield* recordFailure({ ...input, date, source, strict: true })
  const title = input.title?.trim() ?? ""
  if (title === "") return yield* new UsageError({ message: `a ${kind} record needs a title`, hint: "give one with --title" })
  const fields = normaliseFields(input.fields)
  const missing = requiredFields(kind).filter((key) => text(fields, key) === undefined)
  if (missing.length > 0) {
    return yield* new UsageError({ message: `a ${kind} record needs ${missing.join(", ")}`, hint: `give each with --field key=value (${requiredFields(kind).join(", ")}); repeat --field key=… for a list` })
  }
  const target = yield* resolveProjectBundle(input)
  const { redact, warnings } = yield* ledgerRedactor(target)
  return yield* createRecord(target, redact, { kind, title, fields, occurrences: [{ date, source, ...(input.note === undefined || input.note.trim() === "" ? {} : { note: input.note.trim() }) }] }, warnings)
})

/** A new record of any kind under a free id (slug of the title, then -2, -3 …). */
export const createRecord = (
  target: ProjectTarget,
  redact: (text: string) => Redacted,
  draft: { readonly kind: string; readonly title: string; readonly fields: Readonly<Record<string, FieldValue>>; readonly occurrences: ReadonlyArray<Occurrence>; readonly meta?: Readonly<Record<string, unknown>>; readonly id?: string },
  warnings: ReadonlyArray<string> = []
) =>
  Effect.gen(function* () {
    const title = redact(draft.title)
    const taken = new Set((yield* readLedgerFiles(target.root, [draft.kind])).map((f) => f.id))
    const base = draft.id ?? idSlug(title)
    let id = base
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`
    const ordered: Record<string, FieldValue> = {}
    for (const key of requiredFields(draft.kind)) if (draft.fields[key] !== undefined) ordered[key] = draft.fields[key]!
    for (const [key, value] of Object.entries(draft.fields)) if (!(key in ordered)) ordered[key] = value
    const record: LedgerRecord = {
      id,
      kind: draft.kind,
      title,
      fields: ordered,
      occurrences: draft.occurrences,
      sources: [...new Set(draft.occurrences.map((o) => o.source))],
      ...(draft.meta === undefined ? {} : { meta: draft.meta })
    }
    const path = recordPath(draft.kind, id)
    const made = yield* writeLedger(target, redact(`Ledger: ${title}`), [recordChange(target, path, null, renderRedacted(record, redact))])
    return {
      bundle: target.name,
      kind: draft.kind,
      id,
      path: `${target.root}/${path}`,
      created: true,
      changed: true,
      occurrences: record.occurrences.length,
      candidates: [],
      proposal: made.id,
      warnings
    } satisfies LedgerWrite as LedgerWrite
  })

/** `failure/<id>`, `.ai/ledger/failure/<id>.md` or a bare id: the record it names. */
export const findRecord = (target: ProjectTarget, given: string) =>
  Effect.gen(function* () {
    const cleaned = given.trim().replace(/^\.ai\/ledger\//, "").replace(/\.md$/, "")
    const [kindPart, idPart] = cleaned.includes("/") ? [cleaned.slice(0, cleaned.indexOf("/")), cleaned.slice(cleaned.indexOf("/") + 1)] : [undefined, cleaned]
    const files = yield* readLedgerFiles(target.root, kindPart === undefined ? undefined : [kindPart])
    const matches = files.filter((f) => f.id === idPart)
    const prefixed = matches.length > 0 ? matches : files.filter((f) => f.id.startsWith(idPart ?? ""))
    if (prefixed.length === 0 || idPart === "") {
      return yield* new NotFound({ what: "ledger record", name: given, message: `no ledger record '${given}' in project '${target.name}'`, hint: "list them with: akm ledger list" })
    }
    if (prefixed.length > 1) {
      return yield* new UsageError({ message: `'${given}' names ${prefixed.length} records: ${prefixed.slice(0, 5).map((f) => `${f.kind}/${f.id}`).join(", ")}`, hint: "give the whole id, as <kind>/<id>" })
    }
    const file = prefixed[0]!
    return { file, record: yield* parseOrFail(file) }
  })

export interface OccurredInput {
  readonly id: string
  readonly bundle?: string | undefined
  readonly cwd?: string | undefined
  readonly note?: string | undefined
  readonly source?: OccurrenceSource | undefined
  readonly date?: string | undefined
}

/** `akm ledger occurred <id>`: one more sighting of a record (R-LED-1). */
const recordOccurredOnce = Effect.fn("ledger.occurred")(function* (input: OccurredInput) {
  const target = yield* resolveProjectBundle(input)
  const date = yield* checkDate(input.date)
  const { file, record } = yield* findRecord(target, input.id)
  const { redact, warnings } = yield* ledgerRedactor(target)
  const note = input.note === undefined || input.note.trim() === "" ? undefined : redact(input.note.trim())
  const { record: next, added } = withOccurrence(record, { date, source: input.source ?? "self-report", ...(note === undefined ? {} : { note }) })
  const base = { bundle: target.name, kind: record.kind, id: record.id, path: `${target.root}/${file.path}`, ...(record.fingerprint === undefined ? {} : { fingerprint: record.fingerprint }), created: false, occurrences: next.occurrences.length, candidates: [], warnings }
  if (!added) return { ...base, changed: false } satisfies LedgerWrite as LedgerWrite
  const made = yield* writeLedger(target, redact(`Ledger: ${record.title} happened again (${date})`), [recordChange(target, file.path, yield* hashAsRead(target, file), renderRedacted(next, redact))])
  return { ...base, changed: true, proposal: made.id } satisfies LedgerWrite as LedgerWrite
})

export const recordOccurred = (input: OccurredInput) => againWhenStale(recordOccurredOnce(input))

export interface SplitInput {
  readonly id: string
  readonly discriminator: string
  readonly bundle?: string | undefined
  readonly cwd?: string | undefined
}

/**
 * `akm ledger split <id> --discriminator "…"` (R-LED-3): the record keeps its
 * history; future failures with its fingerprint whose text contains the
 * discriminator get a fingerprint (and record) of their own.
 */
const splitRecordOnce = Effect.fn("ledger.split")(function* (input: SplitInput) {
  const discriminator = input.discriminator.trim()
  if (discriminator === "") return yield* new UsageError({ message: "a split needs a discriminator", hint: "e.g. --discriminator \"read replica\": text that only the other failure's fields contain" })
  const target = yield* resolveProjectBundle(input)
  const { file, record } = yield* findRecord(target, input.id)
  if (record.kind !== "failure") return yield* new UsageError({ message: `${record.kind}/${record.id} is not a failure`, hint: "only failure records have fingerprints to split" })
  const { redact, warnings } = yield* ledgerRedactor(target)
  const clean = redact(discriminator)
  const known = record.discriminators ?? []
  const base = { bundle: target.name, kind: record.kind, id: record.id, path: `${target.root}/${file.path}`, ...(record.fingerprint === undefined ? {} : { fingerprint: record.fingerprint }), created: false, occurrences: record.occurrences.length, candidates: [], warnings }
  if (known.some((d) => d.toLowerCase() === clean.toLowerCase())) return { ...base, changed: false } satisfies LedgerWrite as LedgerWrite
  const next: LedgerRecord = { ...record, discriminators: [...known, clean] }
  const made = yield* writeLedger(target, redact(`Ledger: split ${record.title} on "${clean}"`), [recordChange(target, file.path, yield* hashAsRead(target, file), renderRedacted(next, redact))])
  return { ...base, changed: true, proposal: made.id } satisfies LedgerWrite as LedgerWrite
})

export const splitRecord = (input: SplitInput) => againWhenStale(splitRecordOnce(input))

export { loadLedger }
