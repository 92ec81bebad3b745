import { Either } from "effect"
import type { Heading, List, Root } from "mdast"
import remarkFrontmatter from "remark-frontmatter"
import remarkParse from "remark-parse"
import { unified } from "unified"
import { isMap, LineCounter, parseDocument, stringify } from "yaml"
import { fieldKey, headingOf, isLedgerKind, LIST_FIELDS, requiredFields } from "./Kinds.js"
import { isOccurrenceSource, type FieldValue, type LedgerRecord, type Occurrence } from "./Record.js"

/**
 * The markdown form of a ledger record (decision 0012): YAML frontmatter
 * parsed with `yaml`, fields as `## Field` sections found with mdast — a `## `
 * inside a code fence is not a heading, and a body line that would read as a
 * heading is written escaped, so a field never splits a record.
 */

/** What is wrong with a record file, and on which line (1-based). */
export interface LedgerProblem {
  readonly code: "invalid-yaml" | "invalid-ledger-record" | "ledger-missing-field"
  readonly message: string
  readonly line: number
}

const parser = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"])

const KNOWN_KEYS = new Set(["kind", "id", "title", "fingerprint", "occurrences", "sources", "discriminators"])

const lineAt = (text: string, offset: number): number => {
  let line = 1
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

/** Lines that a markdown parser would read as a level 1–2 heading or a setext underline are escaped on write. */
const ESCAPABLE = /^( {0,3})(#{1,6}(?:[ \t]|$)|=+[ \t]*$|-{2,}[ \t]*$)/
const ESCAPED = /^( {0,3})\\(#{1,6}(?:[ \t]|$)|=+[ \t]*$|-{2,}[ \t]*$)/

const escapeBody = (text: string): string => {
  let fenced = false
  return text.split("\n").map((line) => {
    if (/^ {0,3}(```|~~~)/.test(line)) fenced = !fenced
    return fenced ? line : line.replace(ESCAPABLE, "$1\\$2")
  }).join("\n")
}

const unescapeBody = (text: string): string => {
  let fenced = false
  return text.split("\n").map((line) => {
    if (/^ {0,3}(```|~~~)/.test(line)) fenced = !fenced
    return fenced ? line : line.replace(ESCAPED, "$1$2")
  }).join("\n")
}

/** A section that is exactly one bullet list of one-line items is a list field. */
const listItems = (node: List, text: string): ReadonlyArray<string> | undefined => {
  if (node.ordered === true) return undefined
  const items: Array<string> = []
  for (const item of node.children) {
    const start = item.position?.start.offset
    const end = item.position?.end.offset
    if (start === undefined || end === undefined) return undefined
    const raw = text.slice(start, end).replace(/^\s*[-*+]\s?/, "")
    if (raw.includes("\n")) return undefined
    items.push(unescapeBody(raw.trim()))
  }
  return items
}

const asText = (value: unknown): string | undefined =>
  value === undefined || value === null ? undefined
  : typeof value === "string" ? value
  : typeof value === "number" || typeof value === "boolean" ? String(value)
  : value instanceof Date ? value.toISOString().slice(0, 10)
  : undefined

const occurrencesOf = (value: unknown, line: number): Either.Either<ReadonlyArray<Occurrence>, LedgerProblem> => {
  if (value === undefined || value === null) return Either.right([])
  const bad = (message: string) => Either.left<LedgerProblem>({ code: "invalid-ledger-record", message, line })
  if (!Array.isArray(value)) return bad("`occurrences` must be a list of mappings, each with a `date` and a `source`")
  const out: Array<Occurrence> = []
  for (const entry of value as ReadonlyArray<unknown>) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return bad("each occurrence is a mapping with `date`, `source` and an optional `note`")
    const o = entry as Record<string, unknown>
    const date = asText(o["date"])
    if (date === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return bad(`an occurrence needs a \`date\` as YYYY-MM-DD${date === undefined ? "" : ` (found '${date}')`}`)
    const source = asText(o["source"]) ?? "self-report"
    if (!isOccurrenceSource(source)) return bad(`occurrence source '${source}' is not one of self-report, git, ci`)
    const note = asText(o["note"])
    out.push({ date, source, ...(note === undefined || note === "" ? {} : { note }) })
  }
  return Either.right(out)
}

const stringList = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) ? value.map((v) => asText(v)).filter((v): v is string => v !== undefined) : undefined

/** Where a record's parts are: the YAML text, where the body starts, and each `## ` section. */
interface Layout {
  readonly yaml: string
  readonly bodyStart: number
  readonly sections: ReadonlyArray<{
    readonly heading: string
    /** Offset of the heading line; of its body; of the next section (or the end). */
    readonly start: number
    readonly bodyStart: number
    readonly end: number
    readonly line: number
    /** Set when the body is exactly one bullet list of one-line items. */
    readonly list?: ReadonlyArray<string>
  }>
}

const headingText = (line: string): string => line.replace(/^ {0,3}#+\s*/, "").replace(/\s+#+\s*$/, "").replace(/^#+$/, "").trim()

/** The fidelity path: remark's mdast (code fences, indented code, HTML, block quotes and setext headings all handled). */
const mdastLayout = (text: string): Layout | undefined => {
  const tree: Root = parser.parse(text)
  const yamlNode = tree.children[0]?.type === "yaml" ? tree.children[0] : undefined
  if (yamlNode === undefined) return undefined
  const headings = tree.children
    .map((node, index) => ({ node, index }))
    .filter((h): h is { node: Heading; index: number } => h.node.type === "heading" && h.node.depth === 2)
  return {
    yaml: yamlNode.value,
    bodyStart: yamlNode.position?.end.offset ?? 0,
    sections: headings.map((h, i) => {
      const start = h.node.position!.start.offset!
      const bodyStart = h.node.position!.end.offset!
      const between = tree.children.slice(h.index + 1, headings[i + 1]?.index ?? tree.children.length)
      const list = between.length === 1 && between[0]!.type === "list" ? listItems(between[0] as List, text) : undefined
      return {
        heading: headingText(text.slice(start, bodyStart).split("\n")[0]!),
        start,
        bodyStart,
        end: headings[i + 1]?.node.position?.start.offset ?? text.length,
        line: h.node.position!.start.line,
        ...(list === undefined ? {} : { list })
      }
    })
  }
}

/**
 * Lines that make a line scan disagree with mdast: fences, indented code,
 * HTML, block quotes, setext underlines, tables, and list items that are not
 * plain `- ` bullets. Records akm writes have none of them (bodies are escaped
 * on write), so the common case skips the mdast parse: 1,000 records are read
 * on every `ledger list`, `verify` and `distil`.
 */
const UNSAFE_LINE = /^(?: {4}|\t| {0,3}(?:```|~~~|<|>|=+\s*$|-{2,}\s*$|\*|\+|\d+[.)]|\|))|^ {1,3}-/

const fastLayout = (text: string): Layout | undefined => {
  if (!text.startsWith("---\n")) return undefined
  const close = /\n---[ \t]*(?:\n|$)/.exec(text.slice(3))
  if (close === null) return undefined
  const yamlEnd = 3 + close.index + 1
  const yaml = text.slice(4, yamlEnd)
  const bodyStart = Math.min(text.length, yamlEnd + close[0].length - 1)
  const body = text.slice(bodyStart)
  const lines = body.split("\n")
  const sections: Array<{ heading: string; start: number; bodyStart: number; end: number; line: number; list?: ReadonlyArray<string> }> = []
  const firstLine = text.slice(0, bodyStart).split("\n").length
  let offset = bodyStart
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (UNSAFE_LINE.test(line)) return undefined
    if (/^ {0,3}##(?:[ \t]|$)/.test(line)) {
      const last = sections[sections.length - 1]
      if (last !== undefined) last.end = offset
      sections.push({ heading: headingText(line), start: offset, bodyStart: offset + line.length, end: text.length, line: firstLine + i })
    }
    offset += line.length + 1
  }
  for (const section of sections) {
    const inner = text.slice(section.bodyStart, section.end).split("\n").map((l) => l.trim()).filter((l) => l !== "")
    if (inner.length > 0 && inner.every((l) => /^- /.test(l))) section.list = inner.map((l) => unescapeBody(l.slice(2).trim()))
  }
  return { yaml, bodyStart, sections }
}

/** For tests: the two layouts of a text (the fast one undefined when the text needs mdast). */
export const layoutsOf = (text: string) => ({ fast: fastLayout(text), mdast: mdastLayout(text) })

export interface ParseOptions {
  /** The kind and id the record's path implies (`.ai/ledger/<kind>/<id>.md`): they must agree. */
  readonly expect?: { readonly kind: string; readonly id: string }
}

/**
 * Parses a record file. Left: the first problem, with its line. Fields
 * required by the kind must be present; unknown keys and sections are kept.
 */
export const parseRecord = (input: string, options: ParseOptions = {}): Either.Either<LedgerRecord, LedgerProblem> => {
  const text = input.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n")
  const layout = fastLayout(text) ?? mdastLayout(text)
  if (layout === undefined) return Either.left({ code: "invalid-ledger-record", message: "a ledger record starts with YAML frontmatter (kind, id, title …) between --- lines", line: 1 })
  const counter = new LineCounter()
  const doc = parseDocument(layout.yaml, { lineCounter: counter, prettyErrors: false, uniqueKeys: true })
  // Frontmatter line n is file line n + 1 (the opening ---).
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!
    return Either.left({ code: "invalid-yaml", message: `the frontmatter is not valid YAML: ${error.message.split("\n")[0]}`, line: counter.linePos(Math.min(error.pos[0], Math.max(0, layout.yaml.trimEnd().length - 1))).line + 1 })
  }
  if (!isMap(doc.contents)) return Either.left({ code: "invalid-ledger-record", message: "the frontmatter must be a mapping of keys (kind, id, title …)", line: 2 })
  const keyLine = (key: string): number => {
    const pair = doc.contents !== null && isMap(doc.contents) ? doc.contents.items.find((p) => (p.key as { value?: unknown } | null)?.value === key) : undefined
    const offset = (pair?.key as { range?: [number, number, number] } | undefined)?.range?.[0]
    return offset === undefined ? 2 : counter.linePos(offset).line + 1
  }
  const data = doc.toJS() as Record<string, unknown>
  const kind = asText(data["kind"])
  const id = asText(data["id"])
  const title = asText(data["title"])
  const problem = (code: LedgerProblem["code"], message: string, line: number) => Either.left<LedgerProblem>({ code, message, line })
  if (kind === undefined || kind.trim() === "") return problem("ledger-missing-field", "the record has no `kind`", 2)
  if (id === undefined || id.trim() === "") return problem("ledger-missing-field", "the record has no `id`", 2)
  if (title === undefined || title.trim() === "") return problem("ledger-missing-field", "the record has no `title`", keyLine("title"))
  if (options.expect !== undefined && kind !== options.expect.kind) return problem("invalid-ledger-record", `kind '${kind}' does not match its folder '${options.expect.kind}'`, keyLine("kind"))
  if (options.expect !== undefined && id !== options.expect.id) return problem("invalid-ledger-record", `id '${id}' does not match its file name '${options.expect.id}'`, keyLine("id"))
  const occurrences = occurrencesOf(data["occurrences"], keyLine("occurrences"))
  if (Either.isLeft(occurrences)) return Either.left(occurrences.left)
  if (data["sources"] !== undefined && !Array.isArray(data["sources"])) return problem("invalid-ledger-record", "`sources` must be a list", keyLine("sources"))
  if (data["discriminators"] !== undefined && !Array.isArray(data["discriminators"])) return problem("invalid-ledger-record", "`discriminators` must be a list", keyLine("discriminators"))

  const bodyStart = layout.bodyStart
  const firstHeading = layout.sections[0]?.start ?? text.length
  const preamble = text.slice(bodyStart, firstHeading).trim()
  const fields: Record<string, FieldValue> = {}
  const written: Record<string, string> = {}
  const fieldLines: Record<string, number> = {}
  for (const section of layout.sections) {
    const key = fieldKey(section.heading)
    if (key === "" || Object.hasOwn(fields, key)) continue
    fields[key] = section.list ?? unescapeBody(text.slice(section.bodyStart, section.end).trim())
    if (section.heading !== headingOf(key)) written[key] = section.heading
    fieldLines[key] = section.line
  }
  const meta = Object.fromEntries(Object.entries(data).filter(([key]) => !KNOWN_KEYS.has(key)))
  const record: LedgerRecord = {
    id,
    kind,
    title,
    fields,
    occurrences: occurrences.right,
    ...(asText(data["fingerprint"]) === undefined ? {} : { fingerprint: asText(data["fingerprint"])! }),
    ...((stringList(data["sources"]) ?? []).length === 0 ? {} : { sources: stringList(data["sources"])! }),
    ...(stringList(data["discriminators"]) === undefined ? {} : { discriminators: stringList(data["discriminators"])! }),
    ...(Object.keys(meta).length === 0 ? {} : { meta }),
    ...(preamble === "" ? {} : { preamble }),
    ...(Object.keys(written).length === 0 ? {} : { headings: written })
  }
  if (isLedgerKind(kind)) {
    const bodyLine = lineAt(text, bodyStart) + 1
    for (const field of requiredFields(kind)) {
      const value = fields[field]
      const empty = value === undefined || (typeof value === "string" ? value.trim() === "" : value.length === 0)
      if (empty) return problem("ledger-missing-field", `a ${kind} record needs \`${field}\` (a '## ${headingOf(field)}' section)`, fieldLines[field] ?? bodyLine)
    }
  }
  return Either.right(record)
}

const fieldBody = (value: FieldValue): string =>
  typeof value === "string" ? escapeBody(value.trim()) : value.map((item) => `- ${escapeBody(item.replace(/\s*\n\s*/g, " ").trim())}`).join("\n")

/** Field order on write: the kind's required fields first, then the rest as they came. */
const orderedKeys = (record: LedgerRecord): ReadonlyArray<string> => {
  const required = requiredFields(record.kind).filter((key) => Object.hasOwn(record.fields, key))
  return [...required, ...Object.keys(record.fields).filter((key) => !required.includes(key))]
}

const sourcesOf = (record: LedgerRecord): ReadonlyArray<string> => record.sources ?? [...new Set(record.occurrences.map((o) => o.source))]

/** The record as markdown. Deterministic: the same record always gives the same bytes. */
export const serializeRecord = (record: LedgerRecord): string => {
  const front: Record<string, unknown> = {
    kind: record.kind,
    id: record.id,
    title: record.title,
    ...(record.fingerprint === undefined ? {} : { fingerprint: record.fingerprint }),
    ...(record.discriminators === undefined || record.discriminators.length === 0 ? {} : { discriminators: [...record.discriminators] }),
    occurrences: record.occurrences.map((o) => ({ date: o.date, source: o.source, ...(o.note === undefined ? {} : { note: o.note }) })),
    ...(sourcesOf(record).length === 0 ? {} : { sources: [...sourcesOf(record)] }),
    ...(record.meta ?? {})
  }
  const yaml = stringify(front, { lineWidth: 0, defaultStringType: "PLAIN", defaultKeyType: "PLAIN" })
  const sections = orderedKeys(record).map((key) => {
    const value = record.fields[key]!
    const body = fieldBody(LIST_FIELDS.has(key) && typeof value === "string" ? [value] : value)
    return `## ${record.headings?.[key] ?? headingOf(key)}\n\n${body}\n`
  })
  const head = record.preamble === undefined ? "" : `${record.preamble.trim()}\n\n`
  return `---\n${yaml}---\n\n${head}${sections.join("\n")}`
}

/**
 * The fingerprint of a record file without parsing its markdown: the
 * frontmatter's `fingerprint:` line. Cheap enough to run over every record on
 * each `ledger add`; the match is then parsed in full.
 */
export const peekFingerprint = (text: string): string | undefined => {
  if (!text.startsWith("---")) return undefined
  const end = text.indexOf("\n---", 3)
  const head = end < 0 ? text : text.slice(0, end)
  const match = /^fingerprint:[ \t]*["']?([a-z0-9-]+)["']?[ \t]*$/m.exec(head)
  return match?.[1]
}
