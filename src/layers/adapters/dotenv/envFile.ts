import { normalizeText } from "../core/Frontmatter.js"

/**
 * The shape of a dotenv file without its secrets: key names, line numbers and
 * the descriptions their authors marked public. Values and ordinary comments
 * are skipped as the text is read and never leave this module (R-RT-7).
 *
 * A comment block is public when one of its lines starts with `akm:public`
 * (`# akm:public Database host for the API`). A public block directly above a
 * key describes that key; a public block before the first key, separated from
 * it by a blank line, describes the file.
 */
export interface EnvKey {
  readonly name: string
  readonly line: number
  readonly description?: string
}

export interface EnvProblem {
  readonly kind: "invalid-line" | "unterminated-value" | "duplicate-key"
  readonly line: number
  /** The key involved (never its value). */
  readonly name?: string
  readonly firstLine?: number
}

export interface EnvFile {
  readonly description?: string
  readonly keys: ReadonlyArray<EnvKey>
  readonly problems: ReadonlyArray<EnvProblem>
}

const KEY_LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=(.*)$/
const COMMENT_LINE = /^\s*#(.*)$/
const PUBLIC_MARKER = /^akm:public\b/

interface CommentBlock {
  readonly lines: Array<string>
  isPublic: boolean
  /** A blank line came after the block. */
  detached: boolean
}

/** Index of the closing quote of a value that opens with `quote`, searching from `from`; -1 when absent. */
const closingQuote = (text: string, quote: string, from: number): number => {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\" && quote === "\"") i++
    else if (text[i] === quote) return i
  }
  return -1
}

export const parseEnvFile = (input: string): EnvFile => {
  const lines = normalizeText(input).split("\n")
  const keys: Array<EnvKey> = []
  const problems: Array<EnvProblem> = []
  const firstSeen = new Map<string, number>()
  let description: string | undefined
  let block: CommentBlock | undefined
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!
    const lineNo = i + 1
    if (text.trim() === "") {
      if (block !== undefined) block.detached = true
      continue
    }
    const comment = COMMENT_LINE.exec(text)
    if (comment !== null) {
      const content = comment[1]!.trim()
      if (block === undefined || block.detached) {
        if (block?.isPublic === true && keys.length === 0 && description === undefined) description = block.lines.join(" ")
        block = { lines: [], isPublic: false, detached: false }
      }
      if (PUBLIC_MARKER.test(content)) {
        block.isPublic = true
        const rest = content.replace(PUBLIC_MARKER, "").replace(/^[\s:–-]+/, "").trim()
        if (rest !== "") block.lines.push(rest)
      } else if (content !== "" && !/^akm:default\b/.test(content)) {
        block.lines.push(content)
      }
      continue
    }
    const assignment = KEY_LINE.exec(text)
    if (assignment === null) {
      problems.push({ kind: "invalid-line", line: lineNo })
      block = undefined
      continue
    }
    const name = assignment[1]!
    if (block?.isPublic === true && block.detached && keys.length === 0 && description === undefined) description = block.lines.join(" ")
    const keyDescription = block?.isPublic === true && !block.detached && block.lines.length > 0 ? block.lines.join(" ") : undefined
    block = undefined
    keys.push({ name, line: lineNo, ...(keyDescription === undefined ? {} : { description: keyDescription }) })
    const first = firstSeen.get(name)
    if (first === undefined) firstSeen.set(name, lineNo)
    else problems.push({ kind: "duplicate-key", line: lineNo, name, firstLine: first })
    // A quoted value may run over several lines; skip to its closing quote so
    // its continuation lines are neither keys nor invalid lines.
    const value = assignment[2]!.trimStart()
    const quote = value[0]
    if (quote === "\"" || quote === "'" || quote === "`") {
      if (closingQuote(value, quote, 1) !== -1) continue
      let closed = false
      while (i + 1 < lines.length) {
        i++
        if (closingQuote(lines[i]!, quote, 0) !== -1) {
          closed = true
          break
        }
      }
      if (!closed) problems.push({ kind: "unterminated-value", line: lineNo, name })
    }
  }
  if (block?.isPublic === true && keys.length === 0 && description === undefined && block.lines.length > 0) description = block.lines.join(" ")
  return { ...(description === undefined || description === "" ? {} : { description }), keys, problems }
}
