import { Effect } from "effect"
import { fieldText, fingerprint, type LedgerRecord } from "../../domain/ledger/index.js"
import { resolveProjectBundle, type ProjectTarget } from "./projectBundle.js"
import { loadLedger, type LoadedRecord } from "./store.js"

/** One problem `ledger verify` (and `akm lint`) reports, with its file and line. */
export interface LedgerFinding {
  readonly code: "invalid-yaml" | "invalid-ledger-record" | "ledger-missing-field" | "duplicate-ledger-id" | "duplicate-fingerprint" | "fingerprint-mismatch"
  readonly severity: "error" | "warning"
  /** Bundle-relative. */
  readonly path: string
  readonly line: number
  readonly message: string
}

const lineOf = (text: string, pattern: RegExp): number => {
  const lines = text.split("\n")
  const index = lines.findIndex((l) => pattern.test(l))
  return index < 0 ? 1 : index + 1
}

/**
 * The ledger checker (R-CHK-1): each file that does not parse as a record of
 * its folder, two records with one id, two failures with one fingerprint, and
 * a failure whose fingerprint is not the one its fields give.
 */
export const checkLedger = (loaded: ReadonlyArray<LoadedRecord>): ReadonlyArray<LedgerFinding> => {
  const findings: Array<LedgerFinding> = []
  const ids = new Map<string, string>()
  const fingerprints = new Map<string, string>()
  for (const entry of loaded) {
    if (entry._tag === "Bad") {
      findings.push({ code: entry.problem.code, severity: "error", path: entry.file.path, line: entry.problem.line, message: entry.problem.message })
      continue
    }
    const { record, file } = entry
    const first = ids.get(record.id)
    if (first !== undefined) findings.push({ code: "duplicate-ledger-id", severity: "error", path: file.path, line: lineOf(file.text, /^id:/), message: `id '${record.id}' is also the id of ${first}` })
    else ids.set(record.id, file.path)
    if (record.kind !== "failure") continue
    if (record.fingerprint === undefined) {
      findings.push({ code: "ledger-missing-field", severity: "error", path: file.path, line: 2, message: "a failure record needs a `fingerprint` in its frontmatter" })
      continue
    }
    const other = fingerprints.get(record.fingerprint)
    if (other !== undefined) {
      findings.push({ code: "duplicate-fingerprint", severity: "error", path: file.path, line: lineOf(file.text, /^fingerprint:/), message: `fingerprint ${record.fingerprint} is also on ${other}: merge the two records, or split one with akm ledger split` })
    } else fingerprints.set(record.fingerprint, file.path)
    const expected = expectedFingerprint(record)
    if (expected !== undefined && expected !== record.fingerprint) {
      findings.push({ code: "fingerprint-mismatch", severity: "warning", path: file.path, line: lineOf(file.text, /^fingerprint:/), message: `the fields give fingerprint ${expected}, not ${record.fingerprint}: a recurrence will not find this record` })
    }
  }
  return findings
}

const expectedFingerprint = (record: LedgerRecord): string | undefined => {
  const module = fieldText(record, "module")
  const operation = fieldText(record, "operation")
  const errorClass = fieldText(record, "error_class")
  if (module === undefined || operation === undefined || errorClass === undefined) return undefined
  const discriminator = typeof record.meta?.["discriminator"] === "string" ? record.meta["discriminator"] : undefined
  return fingerprint({ module, operation, error_class: errorClass }, discriminator)
}

export interface LedgerVerifyResult {
  readonly bundle: string
  readonly root: string
  readonly records: number
  readonly findings: ReadonlyArray<LedgerFinding>
  /** No error-level finding. */
  readonly ok: boolean
}

export const verifyProject = (target: ProjectTarget) =>
  Effect.map(loadLedger(target.root), (loaded) => {
    const findings = checkLedger(loaded)
    return { bundle: target.name, root: target.root, records: loaded.length, findings, ok: !findings.some((f) => f.severity === "error") } satisfies LedgerVerifyResult as LedgerVerifyResult
  })

/** `akm ledger verify`: exits 1 when an error is found. */
export const verifyLedger = Effect.fn("ledger.verify")(function* (input: { readonly bundle?: string | undefined; readonly cwd?: string | undefined } = {}) {
  return yield* verifyProject(yield* resolveProjectBundle(input))
})
