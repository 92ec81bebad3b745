import { Document, isMap, isScalar, parseDocument, Scalar, type Node, type Pair } from "yaml"
import { normalizeText } from "./Frontmatter.js"

export interface FrontmatterEditor {
  readonly get: (key: string) => unknown
  /** Sets a top-level key; `undefined` removes it. */
  readonly set: (key: string, value: unknown) => void
  readonly delete: (key: string) => void
}

const BLOCK = /^---[ \t]*\n([\s\S]*?\n)?(---|\.\.\.)[ \t]*(\n|$)/

const STRINGIFY = { flowCollectionPadding: false, lineWidth: 0 } as const

/**
 * YAML text for a mapping, block style with two-space indents. A string whose
 * trailing blank lines a keep-chomped block scalar (`|+`) would lose at the end
 * of the block is written quoted instead, so the text always reads back as the value.
 */
const renderMapping = (fields: Readonly<Record<string, unknown>>): string => {
  const yaml = new Document(fields).toString(STRINGIFY)
  // Read back as parseFrontmatter reads a block: the lines between the fences, without the last line break.
  return JSON.stringify(parseDocument(yaml.replace(/\n$/, "")).toJS()) === JSON.stringify(fields) ? yaml : new Document(fields).toString({ ...STRINGIFY, blockQuote: false })
}

/** `key: value` as a new file would have it. */
const renderPair = (key: string, value: unknown): string => renderMapping({ [key]: value })

/** The text of a scalar value as it follows `key: ` on one line, or undefined when it needs more lines. */
const inlineScalar = (key: string, value: unknown): string | undefined => {
  if (value !== null && typeof value === "object") return undefined
  const rendered = renderPair(key, value)
  const doc = parseDocument(rendered)
  const node = isMap(doc.contents) ? (doc.contents.items[0] as Pair<Node, Node | null> | undefined)?.value : undefined
  const range = node?.range
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

/** A value written on its key's line (`key: value`), not empty, not a block scalar. */
const isInlineScalarNode = (node: Node | null, yamlText: string): node is Scalar => {
  if (!isScalar(node)) return false
  const range = node.range
  if (range === undefined || range === null || node.type === Scalar.BLOCK_FOLDED || node.type === Scalar.BLOCK_LITERAL) return false
  const source = yamlText.slice(range[0], range[1])
  return source !== "" && !source.includes("\n")
}

/**
 * Changes frontmatter fields by splicing the source text: a changed scalar has
 * only its value replaced (key, comment and the rest of the line stay), a
 * changed collection has its own lines replaced, a removed key loses its own
 * lines, new keys are appended to the block. Every other byte — unknown keys,
 * key order, comments, indentation style, the body — is left alone (spec 00 §4;
 * round-trip property tested). CRLF and a BOM are kept. A file without
 * frontmatter gets a new block.
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
    const splices: Array<{ readonly start: number; readonly end: number; readonly text: string }> = []
    const additions: Array<string> = []
    for (const key of touched) {
      const pair = pairs.find((p) => isScalar(p.key) && String(p.key.value) === key)
      const keyRange = pair?.key.range
      if (pair === undefined || keyRange === undefined || keyRange === null) {
        if (current.has(key)) additions.push(renderPair(key, current.get(key)))
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
      if (JSON.stringify(value) === JSON.stringify(pair.value?.toJSON() ?? null)) continue
      const inline = isInlineScalarNode(pair.value, yamlText) ? inlineScalar(key, value) : undefined
      const valueRange = pair.value?.range
      if (inline !== undefined && valueRange !== undefined && valueRange !== null) splices.push({ start: valueRange[0], end: valueRange[1], text: inline })
      else splices.push({ start, end, text: renderPair(key, value) })
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
