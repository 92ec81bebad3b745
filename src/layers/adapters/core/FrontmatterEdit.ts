import { isScalar, parseDocument } from "yaml"
import { normalizeText } from "./Frontmatter.js"

export interface FrontmatterEditor {
  readonly get: (key: string) => unknown
  readonly set: (key: string, value: unknown) => void
  readonly delete: (key: string) => void
}

/**
 * Changes frontmatter fields in place with the YAML Document API: unknown
 * keys, key order and comments survive, and the body is untouched — never a
 * whole-file re-serialisation to change one field (spec 00 §4). A file with no
 * frontmatter gets a new block.
 */
export const editFrontmatter = (input: string, edit: (editor: FrontmatterEditor) => void): string => {
  const text = normalizeText(input)
  const match = /^---[ \t]*\n([\s\S]*?\n)?(---|\.\.\.)[ \t]*(\n|$)/.exec(text)
  const yamlText = match?.[1] ?? ""
  const rest = match === null ? text : text.slice(match[0].length)
  const doc = parseDocument(yamlText)
  if (doc.errors.length > 0) throw new Error(`cannot edit malformed frontmatter: ${doc.errors[0]!.message}`)
  if (doc.contents === null) doc.contents = doc.createNode({}) as never
  edit({
    get: (key) => {
      const node = doc.get(key, true)
      return isScalar(node) ? node.value : (node as { toJSON?: () => unknown } | undefined)?.toJSON?.()
    },
    set: (key, value) => {
      const existing = doc.get(key, true)
      if (isScalar(existing) && (value === null || typeof value !== "object")) existing.value = value
      else doc.set(key, doc.createNode(value))
    },
    delete: (key) => {
      doc.delete(key)
    }
  })
  const yaml = doc.toString({ flowCollectionPadding: false, lineWidth: 0 })
  const out = `---\n${yaml}---\n${match === null ? (rest.startsWith("\n") ? rest : `\n${rest}`) : rest}`
  // Keep the file's own line endings and BOM.
  const crlf = /\r\n/.test(input) ? out.replace(/\n/g, "\r\n") : out
  return input.startsWith("\uFEFF") ? `\uFEFF${crlf}` : crlf
}

/** Renders a new file: frontmatter in the given key order, then the body. */
export const renderWithFrontmatter = (fields: Readonly<Record<string, unknown>>, body: string): string => {
  const present = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
  const doc = parseDocument("")
  doc.contents = doc.createNode(present) as never
  const yaml = Object.keys(present).length === 0 ? "" : doc.toString({ flowCollectionPadding: false, lineWidth: 0 })
  const trimmedBody = body.replace(/^\n+/, "")
  return `---\n${yaml}---\n\n${trimmedBody}${trimmedBody.endsWith("\n") ? "" : "\n"}`
}
