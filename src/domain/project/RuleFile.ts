import { Document, isMap, isSeq, LineCounter, parseDocument } from "yaml"

/**
 * A rule file (spec 08 §4): optional YAML frontmatter, then the body. Read
 * with `yaml`'s Document API and edited through it, so comments, key order
 * and quoting of the untouched keys stay, and the body after the closing
 * `---` is kept byte-for-byte (decision 0020).
 */

export interface RuleMandate {
  readonly must: boolean
  readonly subject: string
}

export interface RevisitWhen {
  readonly date?: string
  readonly pathMissing?: string
}

export interface RuleFile {
  /** Bundle-relative path: `rules/07-retry.md`. */
  readonly path: string
  /** `id` from the frontmatter, else the file name's number prefix, else its stem. */
  readonly id: string
  readonly title: string
  readonly introducedBy?: string
  readonly supersedes: ReadonlyArray<string>
  readonly supersededBy?: string
  readonly caused: ReadonlyArray<string>
  readonly scope: ReadonlyArray<string>
  /** Structured mandates; absent when the frontmatter has none (prose is read instead). */
  readonly mandates?: ReadonlyArray<RuleMandate>
  readonly revisitWhen?: RevisitWhen
  /** The text after the frontmatter, exactly as in the file. */
  readonly body: string
  /** 1-based line where the body starts. */
  readonly bodyLine: number
  /** 1-based line of each top-level frontmatter key. */
  readonly keyLines: Readonly<Record<string, number>>
}

export interface RuleProblem {
  readonly path: string
  readonly line: number
  readonly message: string
}

const BLOCK = /^(---[ \t]*\r?\n)([\s\S]*?)(^(?:---|\.\.\.)[ \t]*(?:\r?\n|$))/m

interface Split {
  readonly open: string
  readonly yaml: string
  readonly close: string
  readonly body: string
  readonly bodyLine: number
}

const splitFile = (text: string): Split | undefined => {
  if (!/^---[ \t]*\r?\n/.test(text)) return undefined
  const match = BLOCK.exec(text)
  if (match === null || match.index !== 0) return undefined
  const head = match[0]
  return { open: match[1]!, yaml: match[2]!, close: match[3]!, body: text.slice(head.length), bodyLine: head.split("\n").length }
}

const list = (value: unknown): ReadonlyArray<string> =>
  value === undefined || value === null ? [] : (Array.isArray(value) ? value : [value]).filter((v) => typeof v === "string" || typeof v === "number").map((v) => String(v).trim()).filter((v) => v !== "")

const one = (value: unknown): string | undefined => (typeof value === "string" || typeof value === "number") && String(value).trim() !== "" ? String(value).trim() : undefined

const titleOf = (body: string, path: string): string => {
  const heading = /^#[ \t]+(.+?)[ \t#]*$/m.exec(body)
  return heading?.[1]?.trim() ?? path.replace(/^.*\//, "").replace(/\.md$/, "")
}

/** The id a rule is known by when its frontmatter names none. */
export const fileRuleId = (path: string): string => {
  const name = path.replace(/^.*\//, "").replace(/\.md$/, "")
  return /^(\d+)(?:[-_.]|$)/.exec(name)?.[1] ?? name
}

const dateText = (value: unknown): string | undefined =>
  value instanceof Date ? value.toISOString().slice(0, 10) : typeof value === "string" ? value.trim() : undefined

/** Parses a rule; a malformed frontmatter is a problem naming its line. */
export const parseRuleFile = (path: string, text: string): { readonly rule: RuleFile } | { readonly problem: RuleProblem } => {
  const split = splitFile(text)
  if (split === undefined) {
    if (/^---[ \t]*\r?\n/.test(text)) return { problem: { path, line: 1, message: "the frontmatter opened with --- is never closed" } }
    return { rule: { path, id: fileRuleId(path), title: titleOf(text, path), supersedes: [], caused: [], scope: [], body: text, bodyLine: 1, keyLines: {} } }
  }
  const counter = new LineCounter()
  const doc = parseDocument(split.yaml, { lineCounter: counter })
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!
    return { problem: { path, line: 1 + (error.linePos?.[0].line ?? 1), message: `the frontmatter is not valid YAML: ${error.message.split("\n")[0]}` } }
  }
  if (doc.contents !== null && !isMap(doc.contents)) return { problem: { path, line: 2, message: "the frontmatter must be a mapping of keys" } }
  const keyLines: Record<string, number> = {}
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      const key = (pair.key as { value?: unknown; range?: [number, number, number] } | null)
      if (key?.range !== undefined && key.value !== undefined) keyLines[String(key.value)] = 1 + counter.linePos(key.range[0]).line
    }
  }
  const data = (doc.toJS() ?? {}) as Record<string, unknown>
  const mandatesRaw = data["mandates"]
  const mandates = Array.isArray(mandatesRaw)
    ? mandatesRaw.flatMap((m: unknown) => {
      const entry = m as { must?: unknown; subject?: unknown } | null
      return entry !== null && typeof entry === "object" && typeof entry.must === "boolean" && typeof entry.subject === "string" ? [{ must: entry.must, subject: entry.subject }] : []
    })
    : undefined
  const revisit = data["revisit_when"] as { date?: unknown; pathMissing?: unknown } | null | undefined
  const revisitWhen: RevisitWhen | undefined = revisit !== null && typeof revisit === "object"
    ? { ...(dateText(revisit.date) === undefined ? {} : { date: dateText(revisit.date)! }), ...(one(revisit.pathMissing) === undefined ? {} : { pathMissing: one(revisit.pathMissing)! }) }
    : undefined
  const introducedBy = one(data["introduced_by"])
  const supersededBy = one(data["superseded_by"])
  return {
    rule: {
      path,
      id: one(data["id"]) ?? fileRuleId(path),
      title: titleOf(split.body, path),
      ...(introducedBy === undefined ? {} : { introducedBy }),
      supersedes: list(data["supersedes"]),
      ...(supersededBy === undefined ? {} : { supersededBy }),
      caused: list(data["caused"]),
      scope: list(data["scope"]),
      ...(mandates === undefined ? {} : { mandates }),
      ...(revisitWhen === undefined || Object.keys(revisitWhen).length === 0 ? {} : { revisitWhen }),
      body: split.body,
      bodyLine: split.bodyLine,
      keyLines
    }
  }
}

/** One frontmatter edit: set a scalar, or add an item to a list (kept a list; the item once). */
export type RuleEdit =
  | { readonly op: "set"; readonly key: string; readonly value: string }
  | { readonly op: "append"; readonly key: string; readonly value: string }

/** `key: value` as one block of YAML text; lists are written inline (`caused: [a, b]`) like the spec's examples. */
const renderPair = (key: string, value: string | ReadonlyArray<string>): string => {
  const doc = new Document({ [key]: value })
  const node = doc.get(key, true)
  if (isSeq(node)) node.flow = true
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false })
}

const lineStart = (text: string, offset: number): number => text.lastIndexOf("\n", offset - 1) + 1
const lineEnd = (text: string, offset: number): number => {
  const newline = text.indexOf("\n", offset)
  return newline === -1 ? text.length : newline + 1
}

/** The YAML text with one edit spliced in: the edited key's own lines are replaced (or new lines appended); every other byte stays. */
const applyEdit = (yamlText: string, edit: RuleEdit): string => {
  const doc = parseDocument(yamlText)
  const data = (doc.toJS() ?? {}) as Record<string, unknown>
  const value: string | ReadonlyArray<string> = edit.op === "set" ? edit.value : [...list(data[edit.key]), ...(list(data[edit.key]).includes(edit.value) ? [] : [edit.value])]
  const pair = isMap(doc.contents) ? doc.contents.items.find((p) => String((p.key as { value?: unknown } | null)?.value) === edit.key) : undefined
  const keyRange = (pair?.key as { range?: [number, number, number] } | null | undefined)?.range
  if (pair === undefined || keyRange === undefined) return `${yamlText}${yamlText === "" || yamlText.endsWith("\n") ? "" : "\n"}${renderPair(edit.key, value)}`
  const valueEnd = Math.max((pair.value as { range?: [number, number, number] } | null)?.range?.[1] ?? keyRange[1], keyRange[1])
  const start = lineStart(yamlText, keyRange[0])
  const end = lineEnd(yamlText, Math.max(valueEnd - 1, keyRange[0]))
  return `${yamlText.slice(0, start)}${renderPair(edit.key, value)}${yamlText.slice(end)}`
}

/**
 * Applies frontmatter edits with `yaml`'s Document API locating each key:
 * only the edited key's lines change (comments, key order and every other
 * value stay as written); the body — every byte after the closing `---` —
 * is returned unchanged. A file without frontmatter gets one.
 */
export const editRuleFrontmatter = (text: string, edits: ReadonlyArray<RuleEdit>): string => {
  const split = splitFile(text)
  const crlf = split?.open.endsWith("\r\n") === true
  let yaml = (split?.yaml ?? "").replace(/\r\n/g, "\n")
  const doc = parseDocument(yaml)
  if (doc.errors.length > 0) throw new Error(`cannot edit malformed frontmatter: ${doc.errors[0]!.message}`)
  if (doc.contents !== null && !isMap(doc.contents)) throw new Error("cannot edit frontmatter that is not a mapping")
  for (const edit of edits) yaml = applyEdit(yaml, edit)
  if (split === undefined) return `---\n${yaml}---\n\n${text}`
  return `${split.open}${crlf ? yaml.replace(/\n/g, "\r\n") : yaml}${split.close}${split.body}`
}

/** The body of a rule as its sections: `## Heading` → text (code fences respected). */
export const ruleSections = (body: string): ReadonlyArray<{ readonly heading: string; readonly text: string; readonly line: number }> => {
  const out: Array<{ heading: string; lines: Array<string>; line: number }> = []
  let fenced = false
  body.split("\n").forEach((line, index) => {
    if (/^ {0,3}(```|~~~)/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^##[ \t]+(.+?)[ \t#]*$/.exec(line)
    if (heading !== null) out.push({ heading: heading[1]!.trim(), lines: [], line: index + 1 })
    else out[out.length - 1]?.lines.push(line)
  })
  return out.map((s) => ({ heading: s.heading, text: s.lines.join("\n").trim(), line: s.line }))
}
