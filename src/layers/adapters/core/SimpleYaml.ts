import { isScalar, Schema, type ScalarTag } from "yaml"

/**
 * A reader for the frontmatter most files carry — top-level `key: value`
 * lines, lists written `[a, b]` or as `- item` lines, one level of nested
 * `key: value` — that builds no CST: `yaml` builds a token tree, a document
 * and then JavaScript values for every block, about 0.15 ms a file and a
 * fifth of a full index (docs/decisions/0014-index-speed.md). Anything this
 * reader is not sure to read exactly as `yaml` does (other scalar forms,
 * anchors, tags, block scalars, multi-line values, comments after values,
 * duplicate keys, tabs) makes it answer undefined, and the caller parses the
 * block with `yaml` as before. Plain scalars are resolved by `yaml`'s own
 * core-schema tags, so `1.0`, `true`, `~` and `0x1f` mean what they mean there;
 * test/layers/adapters/coreSimpleYaml.test.ts checks both readings agree on every fixture.
 */

/** A scalar as written: plain (resolved by the schema) or quoted (always a string). */
type Raw = { readonly plain: string } | { readonly quoted: string }
type RawValue = Raw | ReadonlyArray<RawValue> | RawMap | null
interface RawMap {
  readonly keys: Array<string>
  readonly values: Array<RawValue>
}

export interface SimpleYaml {
  /** The block under the core schema, as `doc.toJS()` gives it. */
  readonly data: Record<string, unknown>
  /** The block under the failsafe schema: every scalar a string. */
  readonly strings: Record<string, unknown>
  /** 0-based line (within the block) of each top-level key. */
  readonly keyLines: Readonly<Record<string, number>>
}

const coreTags = new Schema({ schema: "core" }).tags.filter((tag): tag is ScalarTag & { readonly test: RegExp } =>
  tag.default === true && tag.collection === undefined && tag.test !== undefined)

/** A plain scalar under the core schema: the first default tag whose test matches, as composeScalar picks it. */
const resolvePlain = (text: string): unknown => {
  for (const tag of coreTags) {
    if (!tag.test.test(text)) continue
    // Some tags resolve to a Scalar node (floats keep their format): toJS reads its value.
    const resolved: unknown = tag.resolve(text, () => undefined, { intAsBigInt: false } as never)
    return isScalar(resolved) ? resolved.value : resolved
  }
  return text
}

/** Keys this reader takes: plain words that resolve to themselves (not null, true, 12…) and are not special to toJS. */
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/
const plainKey = (key: string): boolean => KEY.test(key) && key !== "__proto__" && resolvePlain(key) === key

/** Characters that start something other than a plain scalar, or make one ambiguous. */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`\s]/
/** Control characters, NEL, line and paragraph separators, BOM: left to `yaml`. */
// eslint-disable-next-line no-control-regex
const UNUSUAL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/

/** A one-line plain scalar in block context: no comment, no `key: value` inside, nothing odd. */
const blockPlain = (text: string): boolean =>
  !INDICATOR.test(text) && !text.includes(": ") && !text.endsWith(":") && !text.includes(" #") && !UNUSUAL.test(text)

/** A plain scalar inside `[…]` or `{…}`: the above, and no flow indicator (a colon only inside a word, as in `human:akm`). */
const flowPlain = (text: string): boolean => blockPlain(text) && !/[,[\]{}]/.test(text)

const DOUBLE = /^"[^"\\]*"$/
const SINGLE = /^'(?:[^']|'')*'$/

/** One scalar (already trimmed), or undefined when it is not one this reader takes. */
const scalar = (text: string, flow: boolean): Raw | undefined => {
  if (UNUSUAL.test(text)) return undefined
  if (DOUBLE.test(text)) return { quoted: text.slice(1, -1) }
  if (SINGLE.test(text)) return { quoted: text.slice(1, -1).replaceAll("''", "'") }
  return (flow ? flowPlain(text) : blockPlain(text)) ? { plain: text } : undefined
}

/** `[a, b, "c"]` on one line. */
const flowSequence = (text: string): ReadonlyArray<Raw> | undefined => {
  if (!text.endsWith("]")) return undefined
  const inner = text.slice(1, -1)
  if (inner.trim() === "") return []
  // Quoted items may hold commas or brackets: leave them to yaml.
  if (/["']/.test(inner)) return undefined
  const items: Array<Raw> = []
  for (const part of inner.split(",")) {
    const item = scalar(part.trim(), true)
    if (item === undefined) return undefined
    items.push(item)
  }
  return items
}

/** `{ a: x, b: y }` on one line, every value a scalar. */
const flowMapping = (text: string): RawMap | undefined => {
  if (!text.endsWith("}")) return undefined
  const inner = text.slice(1, -1)
  const map: RawMap = { keys: [], values: [] }
  if (inner.trim() === "") return map
  if (/["']/.test(inner)) return undefined
  for (const part of inner.split(",")) {
    const pair = part.trim()
    const colon = pair.indexOf(": ")
    if (colon === -1) return undefined
    const key = pair.slice(0, colon)
    if (!plainKey(key) || map.keys.includes(key)) return undefined
    const value = scalar(pair.slice(colon + 2).trim(), true)
    if (value === undefined) return undefined
    map.keys.push(key)
    map.values.push(value)
  }
  return map
}

/** A value on the key's own line: a scalar, a flow sequence or a flow mapping. */
const inlineValue = (text: string): RawValue | undefined =>
  text.startsWith("[") ? flowSequence(text) : text.startsWith("{") ? flowMapping(text) : scalar(text, false)

const indentOf = (line: string): number => {
  let i = 0
  while (line.charCodeAt(i) === 0x20) i++
  return i
}

/** Blank and whole-line comment lines: nothing in block context. */
const isSkippable = (line: string): boolean => {
  const i = indentOf(line)
  return i === line.length || line.charCodeAt(i) === 0x23
}

/** `key: rest` or `key:` at `indent`; undefined when the line is not that. */
const keyLine = (line: string, indent: number): { readonly key: string; readonly rest: string } | undefined => {
  const colon = line.indexOf(":", indent)
  if (colon === -1) return undefined
  const key = line.slice(indent, colon)
  if (!plainKey(key)) return undefined
  if (colon + 1 === line.length) return { key, rest: "" }
  if (line.charCodeAt(colon + 1) !== 0x20) return undefined
  return { key, rest: line.slice(colon + 2).trim() }
}

/**
 * Reads a frontmatter block (the text between the fences, LF line ends), or
 * undefined when it is not in the simple form this reader takes exactly.
 */
export const readSimpleYaml = (text: string): SimpleYaml | undefined => {
  if (text.includes("\t") || text.includes("\r")) return undefined
  const lines = text.split("\n")
  const top: RawMap = { keys: [], values: [] }
  const keyLines: Record<string, number> = {}
  let i = 0
  /** The next line index with content, from `from`. */
  const next = (from: number): number => {
    let at = from
    while (at < lines.length && isSkippable(lines[at]!)) at++
    return at
  }
  i = next(0)
  while (i < lines.length) {
    const line = lines[i]!
    if (indentOf(line) !== 0) return undefined
    const entry = keyLine(line, 0)
    if (entry === undefined || entry.key in keyLines) return undefined
    keyLines[entry.key] = i
    top.keys.push(entry.key)
    const after = next(i + 1)
    if (entry.rest !== "") {
      const value = inlineValue(entry.rest)
      // A more indented line after a value continues it (multi-line scalar): yaml's.
      if (value === undefined || (after < lines.length && indentOf(lines[after]!) > 0)) return undefined
      top.values.push(value)
      i = after
      continue
    }
    if (after >= lines.length || (indentOf(lines[after]!) === 0 && !lines[after]!.startsWith("- "))) {
      top.values.push(null)
      i = after
      continue
    }
    const nested = block(lines, after, next)
    if (nested === undefined) return undefined
    top.values.push(nested.value)
    i = nested.end
  }
  return { data: resolve(top, false) as Record<string, unknown>, strings: resolve(top, true) as Record<string, unknown>, keyLines }
}

/** A nested block from line `start`: `- item` lines (a sequence) or `key: value` lines (a mapping), all at one indent. */
const block = (lines: ReadonlyArray<string>, start: number, next: (from: number) => number): { readonly value: RawValue; readonly end: number } | undefined => {
  const indent = indentOf(lines[start]!)
  const sequence = lines[start]!.startsWith("- ", indent)
  const items: Array<Raw> = []
  const map: RawMap = { keys: [], values: [] }
  let i = start
  while (i < lines.length) {
    const line = lines[i]!
    const at = indentOf(line)
    if (at < indent || (indent === 0 && !line.startsWith("- "))) break
    if (at > indent) return undefined
    const after = next(i + 1)
    // Anything more indented after an entry belongs to it: nesting or continuation, left to yaml.
    if (after < lines.length && indentOf(lines[after]!) > indent) return undefined
    if (sequence) {
      if (!line.startsWith("- ", indent)) return undefined
      const item = scalar(line.slice(indent + 2).trim(), false)
      if (item === undefined) return undefined
      items.push(item)
    } else {
      const entry = keyLine(line, indent)
      if (entry === undefined || map.keys.includes(entry.key)) return undefined
      map.keys.push(entry.key)
      if (entry.rest === "") map.values.push(null)
      else {
        const value = inlineValue(entry.rest)
        if (value === undefined) return undefined
        map.values.push(value)
      }
    }
    i = after
  }
  return { value: sequence ? items : map, end: i }
}

const isRaw = (value: RawValue): value is Raw => value !== null && !Array.isArray(value) && !("keys" in (value as object))

/** JavaScript values as `toJS` makes them: under the core schema, or every scalar a string (failsafe). */
const resolve = (value: RawValue, failsafe: boolean): unknown => {
  if (value === null) return failsafe ? "" : null
  if (isRaw(value)) return "quoted" in value ? value.quoted : failsafe ? value.plain : resolvePlain(value.plain)
  if (Array.isArray(value)) return (value as ReadonlyArray<RawValue>).map((item) => resolve(item, failsafe))
  const map = value as RawMap
  const out: Record<string, unknown> = {}
  map.keys.forEach((key, i) => {
    out[key] = resolve(map.values[i]!, failsafe)
  })
  return out
}
