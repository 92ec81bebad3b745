/**
 * Dotenv files with their values, for the runtime only (`akm env run`,
 * `env export`, `env set`): the adapters read the same files without values
 * (layers/adapters/dotenv/envFile.ts) and nothing here reaches an index.
 *
 * The dialect: `KEY=value` and `export KEY=value`; `#` comments; a bare `KEY`
 * or `KEY=` declares a key without a value (required: the operator sets it
 * with `akm env set` or maps it in a binding); single-quoted and backquoted
 * values are literal, double-quoted values know `\n \r \t \" \\`; quoted
 * values may run over several lines; an unquoted value ends at ` #`. Nothing
 * is ever expanded (`$VAR`, `$(…)` stay as written: R-RT-8, no shell).
 *
 * A comment block directly above a key that holds `akm:default` marks its
 * value as a non-secret default that `akm env list` may show.
 */

export interface EnvEntry {
  readonly name: string
  /** 1-based line of the assignment. */
  readonly line: number
  /** undefined: declared without a value (`KEY`, `KEY=`); `KEY=""` is the empty value. */
  readonly value: string | undefined
  /** The value may be shown (a `# akm:default` comment above the key). */
  readonly isDefault: boolean
  /** 0-based indices of the first and last physical line the assignment spans. */
  readonly span: readonly [number, number]
  readonly exported: boolean
}

export interface EnvValueProblem {
  readonly kind: "invalid-line" | "unterminated-value" | "duplicate-key"
  readonly line: number
  /** The key involved (never its value). */
  readonly name?: string
}

export interface EnvValues {
  readonly entries: ReadonlyArray<EnvEntry>
  readonly problems: ReadonlyArray<EnvValueProblem>
}

const ASSIGNMENT = /^\s*(export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*(?:=(.*))?$/
const COMMENT = /^\s*#(.*)$/
const DEFAULT_MARKER = /\bakm:default\b/

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t", "\"": "\"", "\\": "\\" }

/** The raw lines of a text, each without its line ending. */
const physicalLines = (text: string): ReadonlyArray<string> => text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))

/**
 * Reads a quoted value that opens at `rest[0]`, continuing over the following
 * lines when it is not closed on this one; undefined when it never closes.
 */
const readQuoted = (rest: string, lines: ReadonlyArray<string>, at: number): { readonly value: string; readonly lastLine: number } | undefined => {
  const quote = rest[0]!
  let out = ""
  let text = rest.slice(1)
  let line = at
  for (;;) {
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!
      if (quote === "\"" && c === "\\" && i + 1 < text.length) {
        const next = text[i + 1]!
        out += ESCAPES[next] ?? `\\${next}`
        i++
      } else if (c === quote) {
        return { value: out, lastLine: line }
      } else {
        out += c
      }
    }
    if (line + 1 >= lines.length) return undefined
    line++
    out += "\n"
    text = lines[line]!
  }
}

export const parseEnvValues = (text: string): EnvValues => {
  const lines = physicalLines(text.startsWith("\uFEFF") ? text.slice(1) : text)
  const entries: Array<EnvEntry> = []
  const problems: Array<EnvValueProblem> = []
  const seen = new Set<string>()
  let marked = false
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!
    if (raw.trim() === "") {
      marked = false
      continue
    }
    const comment = COMMENT.exec(raw)
    if (comment !== null) {
      if (DEFAULT_MARKER.test(comment[1]!)) marked = true
      continue
    }
    const match = ASSIGNMENT.exec(raw)
    if (match === null) {
      problems.push({ kind: "invalid-line", line: i + 1 })
      marked = false
      continue
    }
    const name = match[2]!
    const first = i
    const rest = (match[3] ?? "").trimStart()
    let value: string | undefined
    if (match[3] === undefined || rest === "" || rest.startsWith("#")) {
      value = undefined
    } else if (rest[0] === "\"" || rest[0] === "'" || rest[0] === "`") {
      const quoted = readQuoted(rest, lines, i)
      if (quoted === undefined) {
        problems.push({ kind: "unterminated-value", line: i + 1, name })
        break
      }
      value = quoted.value
      i = quoted.lastLine
    } else {
      value = rest.replace(/\s+#.*$/, "").trimEnd()
    }
    if (seen.has(name)) problems.push({ kind: "duplicate-key", line: first + 1, name })
    seen.add(name)
    entries.push({ name, line: first + 1, value, isDefault: marked, span: [first, i], exported: match[1] !== undefined })
    marked = false
  }
  return { entries, problems }
}

/** A value as a dotenv line writes it, so parseEnvValues reads back exactly `value`. */
export const formatEnvValue = (value: string): string => {
  if (/^[A-Za-z0-9_\-.,:/@+%^~]+$/.test(value) && !value.startsWith("#")) return value
  if (!/['\n\r]/.test(value)) return `'${value}'`
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n").replace(/\r/g, "\\r")}"`
}

/**
 * The text with `name` set to `value`: its first assignment is replaced in
 * place (keeping `export`), or a line is appended; every other line stays as
 * it was, byte for byte.
 */
export const setEnvValue = (text: string, name: string, value: string): string => {
  const parsed = parseEnvValues(text)
  const entry = parsed.entries.find((e) => e.name === name)
  const assignment = `${entry?.exported === true ? "export " : ""}${name}=${formatEnvValue(value)}`
  if (entry === undefined) return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${assignment}\n`
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : ""
  const lines = (bom === "" ? text : text.slice(1)).split("\n")
  const [from, to] = entry.span
  const crlf = lines[to]!.endsWith("\r") ? "\r" : ""
  lines.splice(from, to - from + 1, `${assignment}${crlf}`)
  return bom + lines.join("\n")
}
