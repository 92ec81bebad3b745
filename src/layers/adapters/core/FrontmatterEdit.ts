import { Document, isCollection, isMap, isScalar, isSeq, parseDocument, Scalar, type Node, type Pair } from "yaml"
import { normalizeText } from "./Frontmatter.js"

export interface FrontmatterEditor {
  readonly get: (key: string) => unknown
  /** Sets a top-level key; `undefined` removes it. */
  readonly set: (key: string, value: unknown) => void
  readonly delete: (key: string) => void
}

const BLOCK = /^---[ \t]*\n([\s\S]*?\n)?(---|\.\.\.)[ \t]*(\n|$)/

const STRINGIFY = { flowCollectionPadding: false, lineWidth: 0 } as const

/** How the block being edited lays out its lists, so rewritten values look like their neighbours. */
interface BlockStyle {
  /** `key:\n  - item` (true, as new files are written) or `key:\n- item` (false). */
  readonly indentSeq: boolean
}

const DEFAULT_STYLE: BlockStyle = { indentSeq: true }

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * YAML text for a mapping, block style. A string whose trailing blank lines a
 * keep-chomped block scalar (`|+`) would lose at the end of the block is
 * written quoted instead, so the text always reads back as the value.
 */
const renderMapping = (fields: Readonly<Record<string, unknown>>, style: BlockStyle = DEFAULT_STYLE): string => {
  const options = { ...STRINGIFY, ...style }
  const yaml = new Document(fields).toString(options)
  // Read back as parseFrontmatter reads a block: the lines between the fences, without the last line break.
  return sameValue(parseDocument(yaml.replace(/\n$/, "")).toJS(), fields) ? yaml : new Document(fields).toString({ ...options, blockQuote: false })
}

/** `key: value` as a new file would have it. */
const renderPair = (key: string, value: unknown, style?: BlockStyle): string => renderMapping({ [key]: value }, style)

/** How a value that stays on its key's line is written: quoted like before, or as a flow collection. */
interface InlineStyle {
  readonly quote?: Scalar.Type
  readonly flowPadding?: boolean
}

/** The text of a value as it follows `key: ` on one line in the given style, or undefined when it needs more lines. */
const inlineValue = (key: string, value: unknown, style: InlineStyle = {}): string | undefined => {
  const doc = new Document({ [key]: value })
  const node = isMap(doc.contents) ? (doc.contents.items[0] as Pair<Node, Node | null> | undefined)?.value : undefined
  if (style.quote !== undefined && isScalar(node) && typeof node.value === "string") node.type = style.quote
  if (style.flowPadding !== undefined && isCollection(node)) node.flow = true
  const rendered = doc.toString({ ...STRINGIFY, flowCollectionPadding: style.flowPadding ?? STRINGIFY.flowCollectionPadding })
  const parsed = parseDocument(rendered)
  if (!sameValue(parsed.toJS(), { [key]: value })) return undefined
  const range = isMap(parsed.contents) ? (parsed.contents.items[0] as Pair<Node, Node | null> | undefined)?.value?.range : undefined
  if (range === undefined || range === null) return undefined
  const text = rendered.slice(range[0], range[1])
  return text.includes("\n") ? undefined : text
}

/** Start of the line holding `offset`, and the offset just after the line holding `offset`. */
const lineStart = (text: string, offset: number): number => text.lastIndexOf("\n", offset - 1) + 1
const lineEnd = (text: string, offset: number): number => {
  const newline = text.indexOf("\n", offset)
  return newline === -1 ? text.length : newline + 1
}

/** Column of the first non-blank character on the line holding `offset`. */
const indentAt = (text: string, offset: number): number => {
  const start = lineStart(text, offset)
  return /^[ \t]*/.exec(text.slice(start))![0].length
}

const sourceOf = (node: Node | null, yamlText: string): string => {
  const range = node?.range
  return range === undefined || range === null ? "" : yamlText.slice(range[0], range[1])
}

/** A value written on its key's line (`key: value`), not empty, not a block scalar. */
const isInlineScalarNode = (node: Node | null, yamlText: string): node is Scalar => {
  if (!isScalar(node) || node.type === Scalar.BLOCK_FOLDED || node.type === Scalar.BLOCK_LITERAL) return false
  const source = sourceOf(node, yamlText)
  return source !== "" && !source.includes("\n")
}

/**
 * How an existing value was written where that differs from how a new file
 * would write it — an author's choice the edit keeps: a string quoted though
 * it need not be, a non-empty flow collection (`[a, b]`, `{ by, at }`).
 */
const authorStyle = (key: string, pair: Pair<Node, Node | null>, yamlText: string): InlineStyle => {
  const node = pair.value
  const source = sourceOf(node, yamlText)
  if (isCollection(node) && node.flow === true && node.items.length > 0) return { flowPadding: /^[[{][ \t]/.test(source) }
  if (isInlineScalarNode(node, yamlText) && (node.type === Scalar.QUOTE_SINGLE || node.type === Scalar.QUOTE_DOUBLE) && inlineValue(key, node.toJSON()) !== source) {
    return { quote: node.type }
  }
  return {}
}

/** The list layout a block sequence value shows: its dashes under its key, or indented. */
const styleOf = (pair: Pair<Node, Node | null>, yamlText: string): BlockStyle | undefined => {
  const node = pair.value
  const keyRange = pair.key?.range
  const itemRange = isSeq(node) && node.flow !== true ? (node.items[0] as Node | undefined)?.range : undefined
  if (itemRange === undefined || itemRange === null || keyRange === undefined || keyRange === null) return undefined
  return { indentSeq: indentAt(yamlText, itemRange[0]) > keyRange[0] - lineStart(yamlText, keyRange[0]) }
}

/** The block's own list layout: its first block sequence decides; else a new file's. */
const blockStyleOf = (pairs: ReadonlyArray<Pair<Node, Node | null>>, yamlText: string): BlockStyle =>
  pairs.map((pair) => styleOf(pair, yamlText)).find((style) => style !== undefined) ?? DEFAULT_STYLE

/**
 * Changes frontmatter fields by splicing the source text: a changed scalar has
 * only its value replaced (key, comment and the rest of the line stay; a
 * string quoted by choice stays quoted), a changed flow collection stays a
 * flow collection on its line, any other changed value has its own lines
 * replaced in the block's list indentation, a removed key loses its own lines,
 * new keys are appended to the block. Every other byte — unknown keys, key
 * order, comments, the body — is left alone (spec 00 §4; round-trip property
 * tested). CRLF and a BOM are kept. A file without frontmatter gets a new block.
 */
export const editFrontmatter = (input: string, edit: (editor: FrontmatterEditor) => void): string => {
  const text = normalizeText(input)
  const match = BLOCK.exec(text)
  const yamlText = match?.[1] ?? ""
  const doc = parseDocument(yamlText)
  if (doc.errors.length > 0) throw new Error(`cannot edit malformed frontmatter: ${doc.errors[0]!.message}`)
  if (doc.contents !== null && !isMap(doc.contents)) throw new Error("cannot edit frontmatter that is not a mapping")

  const current = new Map(Object.entries((doc.toJS() ?? {}) as Record<string, unknown>))
  const touched = new Set<string>()
  edit({
    get: (key) => current.get(key),
    set: (key, value) => {
      touched.add(key)
      if (value === undefined) current.delete(key)
      else current.set(key, value)
    },
    delete: (key) => {
      touched.add(key)
      current.delete(key)
    }
  })

  let yaml: string
  if (isMap(doc.contents) && doc.contents.flow === true) {
    // A one-line `{a: 1}` block has no lines to splice: rewrite it as a whole.
    for (const key of touched) {
      if (current.has(key)) doc.set(key, doc.createNode(current.get(key)))
      else doc.delete(key)
    }
    yaml = doc.toString(STRINGIFY)
  } else {
    const pairs = isMap(doc.contents) ? (doc.contents.items as Array<Pair<Node, Node | null>>) : []
    const blockStyle = blockStyleOf(pairs, yamlText)
    const splices: Array<{ readonly start: number; readonly end: number; readonly text: string }> = []
    const additions: Array<string> = []
    for (const key of touched) {
      const pair = pairs.find((p) => isScalar(p.key) && String(p.key.value) === key)
      const keyRange = pair?.key.range
      if (pair === undefined || keyRange === undefined || keyRange === null) {
        if (current.has(key)) additions.push(renderPair(key, current.get(key), blockStyle))
        continue
      }
      const start = lineStart(yamlText, keyRange[0])
      const valueEnd = Math.max(pair.value?.range?.[1] ?? keyRange[1], keyRange[1])
      const end = lineEnd(yamlText, Math.max(valueEnd - 1, keyRange[0]))
      if (!current.has(key)) {
        splices.push({ start, end, text: "" })
        continue
      }
      const value = current.get(key)
      if (sameValue(value, pair.value?.toJSON() ?? null)) continue
      const style = authorStyle(key, pair, yamlText)
      const stays = isInlineScalarNode(pair.value, yamlText) ? value === null || typeof value !== "object" : style.flowPadding !== undefined && value !== null && typeof value === "object"
      const inline = stays ? inlineValue(key, value, style) : undefined
      const valueRange = pair.value?.range
      if (inline !== undefined && valueRange !== undefined && valueRange !== null) splices.push({ start: valueRange[0], end: valueRange[1], text: inline })
      else splices.push({ start, end, text: renderPair(key, value, styleOf(pair, yamlText) ?? blockStyle) })
    }
    yaml = yamlText
    for (const splice of splices.sort((a, b) => b.start - a.start)) yaml = yaml.slice(0, splice.start) + splice.text + yaml.slice(splice.end)
    if (additions.length > 0) yaml = `${yaml}${yaml === "" || yaml.endsWith("\n") ? "" : "\n"}${additions.join("")}`
  }
  const out = match === null
    ? `---\n${yaml}---\n${text.startsWith("\n") ? text : `\n${text}`}`
    : `${text.slice(0, match[0].indexOf("\n") + 1)}${yaml}${text.slice(match[0].indexOf("\n") + 1 + yamlText.length)}`
  // Keep the file's own line endings and BOM.
  const crlf = /\r\n/.test(input) ? out.replace(/\n/g, "\r\n") : out
  return input.startsWith("\uFEFF") ? `\uFEFF${crlf}` : crlf
}

/** Renders a new file: frontmatter in the given key order, then the body. */
export const renderWithFrontmatter = (fields: Readonly<Record<string, unknown>>, body: string): string => {
  const present = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
  const yaml = Object.keys(present).length === 0 ? "" : renderMapping(present)
  const trimmedBody = body.replace(/^\n+/, "")
  return `---\n${yaml}---\n\n${trimmedBody}${trimmedBody.endsWith("\n") ? "" : "\n"}`
}
