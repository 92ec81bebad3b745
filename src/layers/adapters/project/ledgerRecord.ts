import type { MarkdownDocument } from "../core/MarkdownDocument.js"
import { LEDGER_REQUIRED_FIELDS } from "../../../domain/ledger/Kinds.js"
import { ledgerPathParts } from "./layout.js"

/**
 * Ledger records (spec 08 §2): YAML frontmatter (kind, id, title,
 * fingerprint, occurrences, sources) and one `## Field` section per field. A
 * field counts when its section has text, or when the frontmatter carries it.
 * Section headings are matched loosely: `## Root cause` is `root_cause`.
 */
export { LEDGER_REQUIRED_FIELDS } from "../../../domain/ledger/Kinds.js"

export type LedgerCheck = "ledger-missing-field" | "invalid-ledger-record"

export interface LedgerFinding {
  readonly check: LedgerCheck
  readonly message: string
  readonly line?: number
}

export interface LedgerRecord {
  readonly kind: string
  readonly id: string
  readonly title?: string
  /** Field key → its text (a section's body, or a frontmatter value as text). */
  readonly fields: ReadonlyMap<string, string>
  readonly occurrences: number
  readonly findings: ReadonlyArray<LedgerFinding>
}

export const fieldKey = (heading: string): string => heading.trim().toLowerCase().replace(/[\s-]+/g, "_").replace(/[^\p{L}\p{N}_]/gu, "")

const textOf = (value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim()
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((v) => textOf(v) ?? "").filter((v) => v !== "").join("\n") || undefined
  if (typeof value === "object") return JSON.stringify(value)
  return String(value)
}

const sections = (doc: MarkdownDocument): ReadonlyMap<string, { readonly text: string; readonly line: number }> => {
  const bodyLines = doc.frontmatter.body.split("\n")
  const first = doc.frontmatter.bodyLine
  const end = first + bodyLines.length
  const level2 = doc.scan.headings.filter((h) => h.depth === 2)
  const out = new Map<string, { text: string; line: number }>()
  level2.forEach((heading, index) => {
    const until = level2[index + 1]?.line ?? end
    const text = bodyLines.slice(heading.line - first + 1, until - first).join("\n").trim()
    const key = fieldKey(heading.text)
    if (!out.has(key)) out.set(key, { text, line: heading.line })
  })
  return out
}

export const readLedgerRecord = (path: string, doc: MarkdownDocument): LedgerRecord => {
  const { kind, id } = ledgerPathParts(path)
  const findings: Array<LedgerFinding> = []
  const data = doc.frontmatter.data
  const lines = doc.frontmatter.keyLines
  const at = (key: string) => (lines[key] === undefined ? {} : { line: lines[key] })
  if (!doc.frontmatter.present) findings.push({ check: "invalid-ledger-record", message: "a ledger record starts with YAML frontmatter (kind, id, title …)", line: 1 })
  const declaredKind = textOf(data?.["kind"])
  if (declaredKind !== undefined && declaredKind !== kind) findings.push({ check: "invalid-ledger-record", message: `kind '${declaredKind}' does not match the directory '${kind}'`, ...at("kind") })
  const declaredId = textOf(data?.["id"])
  if (declaredId !== undefined && declaredId !== id) findings.push({ check: "invalid-ledger-record", message: `id '${declaredId}' does not match the file name '${id}'`, ...at("id") })
  const title = textOf(data?.["title"])
  // A malformed block is reported as invalid-frontmatter; its fields are unknown, not missing.
  if (title === undefined && doc.frontmatter.error === undefined) findings.push({ check: "ledger-missing-field", message: "the record has no `title`", ...(lines["title"] === undefined ? { line: 1 } : at("title")) })
  const occurrences = data?.["occurrences"]
  if (occurrences !== undefined && occurrences !== null && !(Array.isArray(occurrences) && occurrences.every((o: unknown) => o !== null && typeof o === "object" && !Array.isArray(o) && textOf((o as Record<string, unknown>)["date"]) !== undefined))) {
    findings.push({ check: "invalid-ledger-record", message: "`occurrences` must be a list of mappings, each with a `date`", ...at("occurrences") })
  }
  const sources = data?.["sources"]
  if (sources !== undefined && sources !== null && !Array.isArray(sources)) findings.push({ check: "invalid-ledger-record", message: "`sources` must be a list", ...at("sources") })

  const fields = new Map<string, string>()
  for (const [key, value] of Object.entries(data ?? {})) {
    const text = textOf(value)
    if (text !== undefined) fields.set(fieldKey(key), text)
  }
  for (const [key, section] of sections(doc)) {
    if (section.text !== "") fields.set(key, section.text)
  }
  if (doc.frontmatter.error === undefined) {
    for (const field of LEDGER_REQUIRED_FIELDS[kind] ?? []) {
      if (!fields.has(field)) findings.push({ check: "ledger-missing-field", message: `a ${kind} record needs \`${field}\` (a '## ${headingOf(field)}' section or a frontmatter key)`, line: doc.frontmatter.bodyLine })
    }
  }
  return {
    kind,
    id,
    ...(title === undefined ? {} : { title }),
    fields,
    occurrences: Array.isArray(occurrences) ? occurrences.length : 0,
    findings
  }
}

/** `root_cause` → `Root cause`: how a field's section is written. */
export const headingOf = (field: string): string => {
  const words = field.replace(/_/g, " ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}
