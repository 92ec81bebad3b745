import { isScalar, Schema, type ScalarTag } from "yaml"

/**
 * A reader for the frontmatter most files carry — top-level `key: value`
 * lines, one-line `[a, b]` and `{ a: x }`, `- item` lines (an item may be a
 * mapping of one-line values), one level of nested `key: value` — that
 * builds no CST: `yaml` builds a token tree, a document
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
  /** The block under the failsafe schema, every scalar a string: made on demand (only SKILL.md asks). */
  readonly strings: () => Record<string, unknown>
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

/**
 * The parts of a flow collection's inside, split at commas outside quotes;
 * undefined when a quote is not closed. A part may be empty (`[a, , b]`): the caller declines it.
 */
const flowParts = (inner: string): ReadonlyArray<string> | undefined => {
  const parts: Array<string> = []
  let start = 0
  let quote = 0
  for (let i = 0; i < inner.length; i++) {
    const c = inner.charCodeAt(i)
    if (quote !== 0) {
      // '' inside single quotes is an escaped quote: the next character opens nothing.
      if (c === quote) quote = quote === 0x27 && inner.charCodeAt(i + 1) === 0x27 ? (i++, quote) : 0
    } else if (c === 0x22 || c === 0x27) quote = c
    else if (c === 0x2c) {
      parts.push(inner.slice(start, i).trim())
      start = i + 1
    }
  }
  if (quote !== 0) return undefined
  parts.push(inner.slice(start).trim())
  return parts
}

/** `[a, b, "c, d"]` on one line, every item a scalar. */
const flowSequence = (text: string): ReadonlyArray<Raw> | undefined => {
  if (!text.endsWith("]")) return undefined
  const inner = text.slice(1, -1)
  if (inner.trim() === "") return []
  const parts = flowParts(inner)
  if (parts === undefined) return undefined
  const items: Array<Raw> = []
  for (const part of parts) {
    const item = scalar(part, true)
    if (item === undefined) return undefined
    items.push(item)
  }
  return items
}

/** `{ a: x, b: "y, z" }` on one line, every value a scalar. */
const flowMapping = (text: string): RawMap | undefined => {
  if (!text.endsWith("}")) return undefined
  const inner = text.slice(1, -1)
  const map: RawMap = { keys: [], values: [] }
  if (inner.trim() === "") return map
  const parts = flowParts(inner)
  if (parts === undefined) return undefined
  for (const pair of parts) {
    // Keys are plain words, so the first ": " ends the key even when the value is quoted.
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

/** White space JavaScript trims but YAML does not (YAML's is only space, tab and line breaks). */
// eslint-disable-next-line no-control-regex -- vertical tab and form feed are the point: trim() strips them, YAML does not
const UNICODE_SPACE = /[\u000b\u000c\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/

/**
 * Reads a frontmatter block (the text between the fences, LF line ends), or
 * undefined when it is not in the simple form this reader takes exactly.
 */
export const readSimpleYaml = (text: string): SimpleYaml | undefined => {
  // JavaScript's trim() also strips Unicode spaces YAML keeps as text (U+00A0 …): such blocks go to `yaml`.
  if (text.includes("\t") || text.includes("\r") || UNICODE_SPACE.test(text)) return undefined
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
  return { data: resolve(top, false) as Record<string, unknown>, strings: () => resolve(top, true) as Record<string, unknown>, keyLines }
}

/** A nested block from line `start`: `- item` lines (a sequence) or `key: value` lines (a mapping), all at one indent. */
const block = (lines: ReadonlyArray<string>, start: number, next: (from: number) => number): { readonly value: RawValue; readonly end: number } | undefined => {
  const indent = indentOf(lines[start]!)
  const sequence = lines[start]!.startsWith("- ", indent)
  const items: Array<Raw | RawMap> = []
  const map: RawMap = { keys: [], values: [] }
  let i = start
  while (i < lines.length) {
    const line = lines[i]!
    const at = indentOf(line)
    if (at < indent || (indent === 0 && !line.startsWith("- "))) break
    if (at > indent) return undefined
    if (sequence && line.startsWith("- ", indent) && line.charCodeAt(indent + 2) !== 0x20 && keyLine(line, indent + 2) !== undefined) {
      // `- key: value` and the `key: value` lines under it: one mapping item, its keys two columns in.
      const item = mappingItem(lines, i, indent + 2, next)
      if (item === undefined) return undefined
      items.push(item.value)
      i = item.end
      continue
    }
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

/** A sequence item that is a mapping: `key: value` lines at column `indent`, the first after the item's dash. */
const mappingItem = (lines: ReadonlyArray<string>, start: number, indent: number, next: (from: number) => number): { readonly value: RawMap; readonly end: number } | undefined => {
  const map: RawMap = { keys: [], values: [] }
  let i = start
  for (;;) {
    const entry = keyLine(lines[i]!, indent)
    if (entry === undefined || map.keys.includes(entry.key)) return undefined
    const value = entry.rest === "" ? null : inlineValue(entry.rest)
    if (value === undefined) return undefined
    map.keys.push(entry.key)
    map.values.push(value)
    const after = next(i + 1)
    if (after >= lines.length) return { value: map, end: after }
    const at = indentOf(lines[after]!)
    if (at > indent) return undefined
    if (at < indent) return { value: map, end: after }
    i = after
  }
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
