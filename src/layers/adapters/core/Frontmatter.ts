import { isMap, LineCounter, parseDocument, type Document } from "yaml"

export interface Frontmatter {
  /** Whether the file opens with a `---` block (even a malformed one). */
  readonly present: boolean
  /** The parsed mapping; undefined when absent or malformed. */
  readonly data: Readonly<Record<string, unknown>> | undefined
  /** The text after the block. */
  readonly body: string
  /** 1-based line of the file where the body starts. */
  readonly bodyLine: number
  /** A malformed block: what is wrong and on which line of the file. */
  readonly error?: { readonly message: string; readonly line: number }
  /** 1-based line of each top-level key, for diagnostics. */
  readonly keyLines: Readonly<Record<string, number>>
}

const OPEN = /^---[ \t]*\r?\n/
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/

/** Drops a UTF-8 BOM and normalises CRLF so line numbers match what editors show. */
export const normalizeText = (text: string): string => text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n")

/**
 * Splits YAML frontmatter from a markdown (or any text) file and parses it
 * with `yaml`. Never throws: a malformed block comes back with `error` and the
 * body, so the item is still indexed with what can be salvaged (spec 03 §1.1).
 */
export const parseFrontmatter = (input: string): Frontmatter => {
  const text = normalizeText(input)
  if (!OPEN.test(text)) return { present: false, data: undefined, body: text, bodyLine: 1, keyLines: {} }
  const lines = text.split("\n")
  let close = -1
  for (let i = 1; i < lines.length; i++) {
    if (CLOSE.test(lines[i]!)) {
      close = i
      break
    }
  }
  if (close === -1) {
    return { present: true, data: undefined, body: lines.slice(1).join("\n"), bodyLine: 2, error: { message: "the frontmatter block is not closed with ---", line: 1 }, keyLines: {} }
  }
  const yamlText = lines.slice(1, close).join("\n")
  const body = lines.slice(close + 1).join("\n")
  const bodyLine = close + 2
  const counter = new LineCounter()
  let doc: Document
  try {
    doc = parseDocument(yamlText, { lineCounter: counter, prettyErrors: true, uniqueKeys: true })
  } catch (error) {
    return { present: true, data: undefined, body, bodyLine, error: { message: String(error), line: 2 }, keyLines: {} }
  }
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!
    const line = (first.linePos?.[0]?.line ?? 1) + 1
    // A stack overflow's reported column depends on the caller's stack depth; report it the same way every time (R-AD-2).
    const message = first.message.includes("Maximum call stack size exceeded") ? "the frontmatter is nested too deeply to read" : first.message.split("\n")[0] ?? "invalid YAML"
    return { present: true, data: undefined, body, bodyLine, error: { message, line }, keyLines: {} }
  }
  if (doc.contents === null) return { present: true, data: {}, body, bodyLine, keyLines: {} }
  if (!isMap(doc.contents)) {
    return { present: true, data: undefined, body, bodyLine, error: { message: "the frontmatter must be a mapping of keys to values", line: 2 }, keyLines: {} }
  }
  const keyLines: Record<string, number> = {}
  for (const pair of doc.contents.items) {
    const key = (pair.key as { value?: unknown; range?: [number, number, number] } | null)
    if (key?.range !== undefined) keyLines[String(key.value)] = counter.linePos(key.range[0]).line + 1
  }
  let data: unknown
  try {
    data = doc.toJS({ maxAliasCount: 100 })
  } catch (error) {
    return { present: true, data: undefined, body, bodyLine, error: { message: `cannot read the frontmatter: ${String((error as Error).message ?? error)}`, line: 2 }, keyLines }
  }
  return { present: true, data: (data ?? {}) as Record<string, unknown>, body, bodyLine, keyLines }
}

/** A string field, trimmed; undefined when absent, empty or not a string. */
export const stringField = (data: Readonly<Record<string, unknown>> | undefined, key: string): string | undefined => {
  const value = data?.[key]
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim()
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (value instanceof Date) return value.toISOString()
  return undefined
}

/** A list of strings from a YAML list or a comma-separated string. */
export const stringListField = (data: Readonly<Record<string, unknown>> | undefined, key: string): ReadonlyArray<string> => {
  const value = data?.[key]
  if (Array.isArray(value)) return value.filter((v): v is string | number => typeof v === "string" || typeof v === "number").map((v) => String(v).trim()).filter((v) => v !== "")
  if (typeof value === "string") return value.split(",").map((v) => v.trim()).filter((v) => v !== "")
  return []
}
