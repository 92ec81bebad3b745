import * as fs from "node:fs"
import * as path from "node:path"
import { Either, Schema } from "effect"
import { decodeUtf8 } from "../../../domain/Utf8.js"
import { fsyncDirectory } from "../atomicWrite.js"
import { writeJsonDurably } from "./FileOps.js"
import { readIfExists } from "./Target.js"

/**
 * The journal of one change set (spec 05 §2 step 6): `$DATA/txn/<id>/journal.json`,
 * written durably before the first backup and rewritten once at the commit
 * mark. Everything recovery needs is in it: the roots, every target with its
 * before- and after-hash, the backup blob of the replaced bytes, the temp file
 * name the write uses, and the directories the set creates.
 */

const Hash = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/))

export const JournalTarget = Schema.Struct({
  bundle: Schema.String,
  path: Schema.String,
  beforeHash: Schema.NullOr(Hash),
  afterHash: Schema.NullOr(Hash),
  /** The replaced file's mode, restored on rollback. */
  beforeMode: Schema.optional(Schema.Number),
  backup: Schema.optional(Hash),
  /** Bundle-relative temp file of the write, beside the target. */
  temp: Schema.String
})
export type JournalTarget = typeof JournalTarget.Type

export const Journal = Schema.Struct({
  version: Schema.Literal(1),
  id: Schema.String,
  op: Schema.Literal("apply", "revert", "retire"),
  /** "prepared": nothing is final, recovery rolls back; "committed": every write is done, recovery rolls forward. */
  phase: Schema.Literal("prepared", "committed"),
  createdAt: Schema.String,
  pid: Schema.Number,
  message: Schema.optional(Schema.String),
  bundles: Schema.Record({ key: Schema.String, value: Schema.Struct({ root: Schema.String, gitCommit: Schema.Boolean }) }),
  targets: Schema.Array(JournalTarget),
  /** Bundle-relative directories the set creates, parents first; removed again on rollback when empty. */
  createdDirs: Schema.Array(Schema.Struct({ bundle: Schema.String, path: Schema.String }))
})
export type Journal = typeof Journal.Type

/**
 * The second half of a two-phase move (R-TX-9), recorded before phase one:
 * "awaiting-publish" until the published files are final, then "published";
 * recovery resumes the retire only once the publish is known to have landed.
 */
export const RetireRecord = Schema.Struct({
  version: Schema.Literal(1),
  id: Schema.String,
  publishId: Schema.String,
  stage: Schema.Literal("awaiting-publish", "published"),
  message: Schema.optional(Schema.String),
  /** What the published files must hold for the retire to go ahead. */
  published: Schema.Array(Schema.Struct({ bundle: Schema.String, path: Schema.String, afterHash: Schema.NullOr(Hash) })),
  /** The retire changes; new bytes live in the blob store. */
  changes: Schema.Array(Schema.Struct({
    bundle: Schema.String,
    path: Schema.String,
    beforeHash: Schema.NullOr(Hash),
    afterBlob: Schema.optional(Hash),
    delete: Schema.optional(Schema.Literal(true)),
    mode: Schema.optional(Schema.Number)
  }))
})
export type RetireRecord = typeof RetireRecord.Type

export const JOURNAL_FILE = "journal.json"
export const RETIRE_FILE = "retire.json"

export const transactionDir = (txnDir: string, id: string): string => path.join(txnDir, id)

/** Creates the transaction's directory durably (its entry in $DATA/txn/ is fsynced too). */
const ensureTransactionDir = (txnDir: string, id: string): string => {
  fs.mkdirSync(txnDir, { recursive: true, mode: 0o700 })
  const dir = transactionDir(txnDir, id)
  try {
    fs.mkdirSync(dir, { mode: 0o700 })
    fsyncDirectory(txnDir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
  return dir
}

export const writeJournal = (txnDir: string, journal: Journal): void =>
  writeJsonDurably(path.join(ensureTransactionDir(txnDir, journal.id), JOURNAL_FILE), journal)

export const writeRetireRecord = (txnDir: string, record: RetireRecord): void =>
  writeJsonDurably(path.join(ensureTransactionDir(txnDir, record.id), RETIRE_FILE), record)

/** A record file of a transaction: undefined when absent, a string saying why when unreadable. */
const readRecord = <A, I>(schema: Schema.Schema<A, I>, file: string): A | undefined | string => {
  const bytes = readIfExists(file)
  if (bytes === undefined) return undefined
  const text = decodeUtf8(bytes)
  if (text === undefined) return `${file} is not valid JSON (not UTF-8 text)`
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return `${file} is not valid JSON`
  }
  const decoded = Schema.decodeUnknownEither(schema)(json)
  return Either.isRight(decoded) ? decoded.right : `${file} is not a journal this akm understands`
}

export const readJournal = (txnDir: string, id: string) => readRecord(Journal, path.join(transactionDir(txnDir, id), JOURNAL_FILE))
export const readRetireRecord = (txnDir: string, id: string) => readRecord(RetireRecord, path.join(transactionDir(txnDir, id), RETIRE_FILE))

/** Removes one record file; the directory goes too once nothing else is in it. */
export const removeRecord = (txnDir: string, id: string, file: string): void => {
  const dir = transactionDir(txnDir, id)
  fs.rmSync(path.join(dir, file), { force: true })
  fs.rmSync(path.join(dir, `${file}.tmp`), { force: true })
  fsyncDirectory(dir)
  try {
    fs.rmdirSync(dir)
    fsyncDirectory(txnDir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw error
  }
}

/** Ids of the transaction directories present (sorted), whatever their state. */
export const listTransactions = (txnDir: string): ReadonlyArray<string> => {
  try {
    return fs.readdirSync(txnDir).filter((name) => !name.startsWith(".")).sort()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return []
    throw error
  }
}

/**
 * Finished sets whose outcome the caller has not recorded yet:
 * `$DATA/txn/.finished/<id>.<op>.json`, a copy of the committed journal
 * written before the journal goes. The proposals program records the outcome
 * from it and then removes it, so a crash between the files becoming final
 * and the record being made is caught up by the next command — and only a
 * proposal whose own journal says so is ever recorded as applied.
 */
export const FINISHED_DIR = ".finished"

const finishedFile = (txnDir: string, id: string, op: Journal["op"]): string => path.join(txnDir, FINISHED_DIR, `${id}.${op}.json`)

export const writeFinished = (txnDir: string, journal: Journal): void => {
  const dir = path.join(txnDir, FINISHED_DIR)
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    fsyncDirectory(txnDir)
  }
  writeJsonDurably(finishedFile(txnDir, journal.id, journal.op), journal)
}

/** Every finished record, oldest first; an unreadable one is returned as its file name and why. */
export const listFinished = (txnDir: string): ReadonlyArray<Journal | { readonly file: string; readonly problem: string }> => {
  const dir = path.join(txnDir, FINISHED_DIR)
  let names: Array<string>
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return []
    throw error
  }
  const records = names.map((name) => {
    const read = readRecord(Journal, path.join(dir, name))
    return typeof read === "string" || read === undefined ? { file: name, problem: read ?? "gone" } : read
  })
  return records.sort((a, b) => ("createdAt" in a && "createdAt" in b ? (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) : 0))
}

export const removeFinished = (txnDir: string, id: string, op: Journal["op"]): void => {
  fs.rmSync(finishedFile(txnDir, id, op), { force: true })
  fs.rmSync(`${finishedFile(txnDir, id, op)}.tmp`, { force: true })
}
