import { Composer, isMap, LineCounter, Parser, parseDocument, type CST, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from "yaml"
import { readSimpleYaml } from "./SimpleYaml.js"

type CstToken = CST.Token

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

/** Drops a UTF-8 BOM and normalises CRLF so line numbers match what editors show. */
export const normalizeText = (text: string): string => {
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  return unmarked.includes("\r") ? unmarked.replace(/\r\n?/g, "\n") : unmarked
}

/**
 * The YAML block as its own string: every value parsed from it is a slice of
 * it, and V8 keeps a slice's whole source alive; a name or tag kept in an
 * index document must not keep the entire file's text.
 */
const copied = (text: string): string => Buffer.from(text, "utf16le").toString("utf16le")

/** Whether text[start, end) is a closing line: `---` or `...`, then only spaces and tabs. */
const isClose = (text: string, start: number, end: number): boolean => {
  const head = text.slice(start, start + 3)
  if (head !== "---" && head !== "...") return false
  for (let i = start + 3; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x09) return false
  }
  return true
}

/** The block between the opening `---` line and the first closing line, found without splitting the whole file into lines. */
const splitBlock = (text: string): { readonly yaml: string; readonly body: string; readonly bodyLine: number } | { readonly unclosed: string } => {
  const first = text.indexOf("\n") + 1
  let start = first
  for (let line = 1; ; line++) {
    const newline = text.indexOf("\n", start)
    const end = newline === -1 ? text.length : newline
    if (isClose(text, start, end)) {
      return { yaml: line === 1 ? "" : copied(text.slice(first, start - 1)), body: newline === -1 ? "" : text.slice(newline + 1), bodyLine: line + 2 }
    }
    if (newline === -1) return { unclosed: text.slice(first) }
    start = newline + 1
  }
}

/**
 * The block's one YAML document, composed from CST tokens parsed once (the
 * same Parser and Composer parseDocument uses, so the same result). Undefined
 * when the block is not exactly one clean document: the caller then asks
 * parseDocument again for its exact errors.
 */
const composeOne = (tokens: ReadonlyArray<CstToken>, options: ParseOptions & DocumentOptions & SchemaOptions, length: number): Document.Parsed | undefined => {
  const docs = [...new Composer(options).compose(tokens, true, length)]
  return docs.length === 1 && docs[0]!.errors.length === 0 ? docs[0] : undefined
}

const CORE: ParseOptions & DocumentOptions & SchemaOptions = { uniqueKeys: true }
const FAILSAFE: ParseOptions & DocumentOptions & SchemaOptions = { schema: "failsafe", uniqueKeys: true }

/** The frontmatter and, when asked, the same block read with the failsafe schema (every scalar a string), from one parse of the YAML. */
const readFrontmatter = (input: string, failsafe: boolean): { readonly frontmatter: Frontmatter; readonly strings?: Readonly<Record<string, unknown>> | undefined } => {
  const text = normalizeText(input)
  if (!OPEN.test(text)) return { frontmatter: { present: false, data: undefined, body: text, bodyLine: 1, keyLines: {} } }
  const block = splitBlock(text)
  if ("unclosed" in block) {
    return { frontmatter: { present: true, data: undefined, body: block.unclosed, bodyLine: 2, error: { message: "the frontmatter block is not closed with ---", line: 1 }, keyLines: {} } }
  }
  const { yaml: yamlText, body, bodyLine } = block
  // Most blocks are a few plain keys: read without building yaml's CST; anything else goes to yaml below.
  const simple = readSimpleYaml(yamlText)
  if (simple !== undefined) {
    const keyLines: Record<string, number> = {}
    for (const key in simple.keyLines) keyLines[key] = simple.keyLines[key]! + 2
    return { frontmatter: { present: true, data: simple.data, body, bodyLine, keyLines }, ...(failsafe ? { strings: simple.strings() } : {}) }
  }
  const counter = new LineCounter()
  let doc: Document
  let tokens: ReadonlyArray<CstToken> = []
  try {
    tokens = [...new Parser(counter.addNewLine).parse(yamlText)]
    doc = composeOne(tokens, { ...CORE }, yamlText.length) ?? parseDocument(yamlText, { lineCounter: new LineCounter(), prettyErrors: true, uniqueKeys: true })
  } catch (error) {
    return { frontmatter: { present: true, data: undefined, body, bodyLine, error: { message: String(error), line: 2 }, keyLines: {} } }
  }
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!
    const line = (first.linePos?.[0]?.line ?? 1) + 1
    // A stack overflow's reported column depends on the caller's stack depth; report it the same way every time (R-AD-2).
    const message = first.message.includes("Maximum call stack size exceeded") ? "the frontmatter is nested too deeply to read" : first.message.split("\n")[0] ?? "invalid YAML"
    return { frontmatter: { present: true, data: undefined, body, bodyLine, error: { message, line }, keyLines: {} } }
  }
  if (doc.contents === null) return { frontmatter: { present: true, data: {}, body, bodyLine, keyLines: {} }, ...(failsafe ? { strings: failsafeStrings(tokens, yamlText, {}) } : {}) }
  if (!isMap(doc.contents)) {
    return { frontmatter: { present: true, data: undefined, body, bodyLine, error: { message: "the frontmatter must be a mapping of keys to values", line: 2 }, keyLines: {} } }
  }
  const keyLines: Record<string, number> = {}
  for (const pair of doc.contents.items) {
    const key = (pair.key as { value?: unknown; range?: [number, number, number] } | null)
    if (key?.range !== undefined) keyLines[String(key.value)] = counter.linePos(key.range[0]).line + 1
  }
  let data: Record<string, unknown>
  try {
    data = (doc.toJS({ maxAliasCount: 100 }) ?? {}) as Record<string, unknown>
  } catch (error) {
    return { frontmatter: { present: true, data: undefined, body, bodyLine, error: { message: `cannot read the frontmatter: ${String((error as Error).message ?? error)}`, line: 2 }, keyLines } }
  }
  return { frontmatter: { present: true, data, body, bodyLine, keyLines }, ...(failsafe ? { strings: failsafeStrings(tokens, yamlText, data) } : {}) }
}

/** The block under the failsafe schema, or `data` when it does not read as one mapping that way. */
const failsafeStrings = (tokens: ReadonlyArray<CstToken>, yamlText: string, data: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  try {
    const doc = composeOne(tokens, { ...FAILSAFE }, yamlText.length) ?? parseDocument(yamlText, { ...FAILSAFE })
    if (doc.errors.length > 0 || (doc.contents !== null && !isMap(doc.contents))) return data
    return (doc.toJS({ maxAliasCount: 100 }) ?? {}) as Record<string, unknown>
  } catch {
    return data
  }
}

/**
 * Splits YAML frontmatter from a markdown (or any text) file and parses it
 * with `yaml`. Never throws: a malformed block comes back with `error` and the
 * body, so the item is still indexed with what can be salvaged (spec 03 §1.1).
 */
export const parseFrontmatter = (input: string): Frontmatter => readFrontmatter(input, false).frontmatter

/** A top-level key the fast path reads: a plain name that the core schema keeps a string (not true/false/null). */
const PLAIN_KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/
const NOT_STRING_KEY = /^(?:true|false|null)$/i
/** A one-line scalar: plain (no indicator first, no mapping, no comment) or quoted without escapes. */
const PLAIN_VALUE = /^(?:[\p{L}\p{N}_./(+=^$;<]([\p{L}\p{N} _.,/()+=~^$;<>'"-]|:(?! |$))*|"[^"\\]*"|'[^']*')$/u
/** A one-line flow sequence of plain words: `[api, limits]`. */
const FLOW_WORDS = /^\[ *(?:[\p{L}\p{N}_./][\p{L}\p{N}_./ -]*(?:, *[\p{L}\p{N}_./][\p{L}\p{N}_./ -]*)*)?\]$/u
const OPEN_LIST = "open"
/** An item of a block sequence under a key: `  - memories/foo`. */
const SEQ_ITEM = /^( +)- (.*)$/

/**
 * The top-level key lines of a block so plain that composing it is not
 * needed: every line a `key: value` with a plain value or a one-line flow
 * list of words, `key:` followed by an indented `- item` list, a comment or
 * blank. Undefined for anything else (quotes, block scalars, anchors, nested
 * maps, duplicate keys…): the caller composes the YAML instead.
 */
const plainKeyLines = (yamlText: string): Readonly<Record<string, number>> | undefined => {
  if (yamlText.includes("\t")) return undefined
  const keyLines: Record<string, number> = {}
  const lines = yamlText.split("\n")
  // The indentation of the `- item` list under the last `key:` with no value ("open": not known yet); undefined: none may follow.
  let list: string | undefined
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue
    if (line.startsWith(" ")) {
      const item = SEQ_ITEM.exec(line)
      if (item === null || list === undefined || (list !== OPEN_LIST && list !== item[1])) return undefined
      const value = item[2]!.trimEnd()
      if (!PLAIN_VALUE.test(value) && !FLOW_WORDS.test(value)) return undefined
      list = item[1]!
      continue
    }
    if (line.startsWith("#")) {
      // A list may not go on after a comment here (it could in YAML: the slow path decides).
      list = undefined
      continue
    }
    const key = PLAIN_KEY.exec(line)
    if (key === null || NOT_STRING_KEY.test(key[1]!) || Object.hasOwn(keyLines, key[1]!)) return undefined
    const value = (key[2] ?? "").trimEnd()
    if (value !== "" && !PLAIN_VALUE.test(value) && !FLOW_WORDS.test(value)) return undefined
    keyLines[key[1]!] = index + 2
    list = value === "" ? OPEN_LIST : undefined
  }
  return Object.keys(keyLines).length === 0 ? undefined : keyLines
}

/**
 * parseFrontmatter(input).keyLines, without composing the YAML when the block
 * is plain (a write's bundle rules ask it of every item with a broken ref, on
 * every write). The same answer either way.
 */
export const frontmatterKeyLines = (input: string): Readonly<Record<string, number>> => {
  const text = normalizeText(input)
  if (OPEN.test(text)) {
    const block = splitBlock(text)
    if (!("unclosed" in block)) {
      const plain = plainKeyLines(block.yaml)
      if (plain !== undefined) return plain
    }
  }
  return parseFrontmatter(input).keyLines
}

/**
 * parseFrontmatter plus the block read with the failsafe schema, every scalar
 * as written (`version: 1.0` is "1.0"), from the same parse of the YAML;
 * `strings` is undefined when the block is missing or malformed, and is the
 * parsed data when the block does not read as a mapping under failsafe.
 */
export const parseFrontmatterStrings = (input: string): { readonly frontmatter: Frontmatter; readonly strings: Readonly<Record<string, unknown>> | undefined } => {
  const read = readFrontmatter(input, true)
  return { frontmatter: read.frontmatter, strings: read.frontmatter.data === undefined ? undefined : read.strings }
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
