import { Effect } from "effect"
import type { FileChange } from "../../domain/FileChange.js"
import { serializeRecord, type FieldValue, type LedgerRecord } from "../../domain/ledger/index.js"
import { sha256Hex } from "../../domain/Proposal.js"
import type { Redacted } from "../../domain/Redaction.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { StaleBeforeHash } from "../../services/Transaction.js"
import { Redactor } from "../../services/Redactor.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { proposeAndApply } from "../proposals/direct.js"
import { collectSecretValues } from "../redactorValues.js"
import type { ProjectTarget } from "./projectBundle.js"
import { readProjectConfig, type LedgerFile } from "./store.js"

/**
 * The redactor a ledger write uses (spec 08 §2.1): the repository's `.env*`
 * values are collected first (a `.env` made after the last index counts), and
 * the project's `sensitive.allow` strings are kept.
 */
export const ledgerRedactor = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const { config, warnings } = yield* readProjectConfig(target.root)
    const configured = Object.keys((yield* (yield* WorkspaceConfig).read).bundles)
    yield* Effect.either(collectSecretValues([target.name], configured))
    const redact = yield* (yield* Redactor).snapshotAllowing(config.sensitive.allow)
    return { redact, config, warnings }
  })

/** Every text of a field value redacted. */
export const redactValue = (value: FieldValue, redact: (text: string) => Redacted): FieldValue =>
  typeof value === "string" ? redact(value) : value.map((v) => redact(v))

/** Title, fields, notes, discriminators and unknown keys redacted; then the whole serialised text once more. */
export const renderRedacted = (record: LedgerRecord, redact: (text: string) => Redacted): Redacted => {
  const clean: LedgerRecord = {
    ...record,
    title: redact(record.title),
    fields: Object.fromEntries(Object.entries(record.fields).map(([k, v]) => [k, redactValue(v, redact)])),
    occurrences: record.occurrences.map((o) => (o.note === undefined ? o : { ...o, note: redact(o.note) })),
    ...(record.discriminators === undefined ? {} : { discriminators: record.discriminators.map((d) => redact(d)) }),
    ...(record.meta === undefined ? {} : { meta: JSON.parse(redact(JSON.stringify(record.meta))) as Record<string, unknown> }),
    ...(record.preamble === undefined ? {} : { preamble: redact(record.preamble) })
  }
  return redact(serializeRecord(clean))
}

/** A record file's change: only redacted text compiles here. */
export const recordChange = (target: ProjectTarget, path: string, beforeHash: string | null, after: Redacted): FileChange => ({ bundle: target.name, path, beforeHash, after })

/** The current hash of a bundle file (the change's before-hash). */
export const currentHash = (target: ProjectTarget, path: string) => Effect.flatMap(BundleFiles, (files) => Effect.map(files.hash(target.root, [path]), (h) => h.hash))

/**
 * The before-hash of a change made from `file` as it was read: the hash now,
 * provided the bytes still are what was read. Otherwise another writer got in
 * between and the change would overwrite its edit, so it fails stale and the
 * caller reads the record again (a later change is caught by the engine, which
 * compares this hash under the lease).
 */
export const hashAsRead = (target: ProjectTarget, file: LedgerFile) =>
  Effect.gen(function* () {
    const hash = yield* currentHash(target, file.path)
    const now = yield* Effect.option((yield* BundleFiles).readText(target.root, file.path))
    if (now._tag === "None" || now.value !== file.text) {
      return yield* new StaleBeforeHash({ bundle: target.name, path: file.path, expected: hash, actual: null, hint: "another writer changed the record; it is read again" })
    }
    return hash
  })

/**
 * Writes ledger changes as one proposal of the mechanical class, accepted in
 * the same step under the default policy (spec 05 §3).
 */
export const writeLedger = (target: ProjectTarget, title: Redacted, changes: ReadonlyArray<FileChange>) =>
  proposeAndApply({
    title,
    recipe: "ledger",
    changeClass: "mechanical",
    changes,
    evidence: [{ kind: "user", id: "ledger", hash: sha256Hex(changes.map((c) => `${c.path}\n${typeof c.after === "string" ? c.after : ""}`)) }],
    bundle: target.name,
    root: target.root
  })
