/**
 * Ledger kinds and their required fields (spec 08 §2). A failure's
 * `module`, `operation` and `error_class` make its fingerprint.
 */
export const LEDGER_REQUIRED_FIELDS: Readonly<Record<string, ReadonlyArray<string>>> = {
  failure: ["symptom", "trigger", "root_cause", "fix", "module", "operation", "error_class"],
  question: ["asked", "answer", "answered_by", "date"],
  decision: ["what", "alternatives", "why", "cost_accepted"],
  surprise: ["behavior", "misleading_symptom", "why"],
  requirement: ["statement", "status", "source"],
  drift: ["area", "before", "after", "why"]
}

export const LEDGER_KINDS: ReadonlyArray<string> = Object.keys(LEDGER_REQUIRED_FIELDS)

export const isLedgerKind = (kind: string): boolean => Object.hasOwn(LEDGER_REQUIRED_FIELDS, kind)

export const requiredFields = (kind: string): ReadonlyArray<string> => LEDGER_REQUIRED_FIELDS[kind] ?? []

/** Fields whose value is a list even when one item is given. */
export const LIST_FIELDS: ReadonlySet<string> = new Set(["alternatives"])

/** Where the ledger lives in a project bundle. */
export const LEDGER_DIR = ".ai/ledger"

export const recordPath = (kind: string, id: string): string => `${LEDGER_DIR}/${kind}/${id}.md`

/** `Root cause` / `root-cause` → `root_cause`: how a section heading names its field. */
export const fieldKey = (heading: string): string => heading.trim().toLowerCase().replace(/[\s-]+/g, "_").replace(/[^\p{L}\p{N}_]/gu, "")

/** `root_cause` → `Root cause`: how a field's section is written. */
export const headingOf = (field: string): string => {
  const words = field.replace(/_/g, " ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** A field key as given on the command line: letters, digits and `_` (`root-cause` is `root_cause`). */
export const validFieldKey = (key: string): boolean => /^[a-z][a-z0-9_]*$/.test(fieldKey(key)) && fieldKey(key) === key.trim().toLowerCase().replace(/-/g, "_")

/** A record id from a title: lowercase ASCII letters and digits joined by `-`, at most 60 characters. */
export const idSlug = (title: string): string =>
  title.normalize("NFKD").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60).replace(/-+$/, "") || "record"
