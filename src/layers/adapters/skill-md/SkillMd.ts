import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { parseFrontmatterStrings, type Frontmatter } from "../core/Frontmatter.js"
import type { RuleBook } from "../core/RuleBook.js"
import { codePointLength, normalizeSkillName, skillNameProblems } from "./skillName.js"

/**
 * The one SKILL.md codec (spec 03 "agent-skills"): parse the frontmatter and
 * body, then validate in the reference validator's check order (skills-ref
 * `validate()`), followed by akm's warnings. Severities, limits and word lists
 * come from the caller's rule table, so the same codec serves the
 * agent-skills, claude and opencode adapters with their own tables.
 */

export type SkillFields = Readonly<Record<string, unknown>>

export interface SkillMd {
  readonly frontmatter: Frontmatter
  /**
   * The frontmatter with every scalar read as a string, as skills-ref's
   * strictyaml reads it (`version: 1.0` is "1.0", not 1); undefined when the
   * block is missing or malformed.
   */
  readonly fields: SkillFields | undefined
  readonly body: string
  readonly bodyLine: number
  /** Why the file has no usable frontmatter: `missing-frontmatter` or `invalid-frontmatter`. */
  readonly problem?: { readonly code: "missing-frontmatter" | "invalid-frontmatter"; readonly message: string; readonly line: number }
}

export const parseSkillMd = (text: string): SkillMd => {
  // One parse of the block gives both readings: the usual one and skills-ref's strings.
  const { frontmatter, strings } = parseFrontmatterStrings(text)
  const base = { frontmatter, body: frontmatter.body, bodyLine: frontmatter.bodyLine }
  if (!frontmatter.present) {
    return { ...base, fields: undefined, problem: { code: "missing-frontmatter", message: "SKILL.md must start with a YAML frontmatter block (---)", line: 1 } }
  }
  if (frontmatter.error !== undefined || frontmatter.data === undefined) {
    const error = frontmatter.error ?? { message: "the frontmatter must be a mapping of keys to values", line: 2 }
    return { ...base, fields: undefined, problem: { code: "invalid-frontmatter", message: `invalid frontmatter: ${error.message}`, line: error.line } }
  }
  return { ...base, fields: strings }
}

/** A string field as skills-ref sees it: strings as written, other scalars as text, collections undefined. */
const scalarText = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : value === null ? "" : undefined

const isMapping = (value: unknown): value is Readonly<Record<string, unknown>> => value !== null && typeof value === "object" && !Array.isArray(value)

/** What a SKILL.md declares, trimmed, for projections (skills-ref `read_properties`). */
export interface SkillProperties {
  readonly name?: string
  readonly description?: string
  readonly license?: string
  readonly compatibility?: string
  readonly allowedTools?: string
  readonly metadata?: Readonly<Record<string, string>>
}

export const skillProperties = (fields: SkillFields | undefined): SkillProperties => {
  const text = (key: string): string | undefined => {
    const value = scalarText(fields?.[key])?.trim()
    return value === undefined || value === "" ? undefined : value
  }
  const tools = fields?.["allowed-tools"]
  const allowedTools = Array.isArray(tools) ? tools.map((t) => scalarText(t) ?? "").filter((t) => t !== "").join(" ") : text("allowed-tools")
  const metadata = isMapping(fields?.["metadata"])
    ? Object.fromEntries(Object.entries(fields["metadata"]).flatMap(([k, v]) => (scalarText(v) === undefined ? [] : [[k, scalarText(v)!] as const])))
    : undefined
  const name = text("name")
  const description = text("description")
  const license = text("license")
  const compatibility = text("compatibility")
  return {
    ...(name === undefined ? {} : { name: normalizeSkillName(name) }),
    ...(description === undefined ? {} : { description }),
    ...(license === undefined ? {} : { license }),
    ...(compatibility === undefined ? {} : { compatibility }),
    ...(allowedTools === undefined || allowedTools === "" ? {} : { allowedTools }),
    ...(metadata === undefined ? {} : { metadata })
  }
}

export interface SkillCheckInput {
  /** Bundle-relative path of the SKILL.md, for diagnostics. */
  readonly path: string
  /** The skill directory's name; undefined checks a file on its own (no name-directory check). */
  readonly dirName?: string | undefined
  readonly text: string
  readonly book: RuleBook
  /** The bundle, when a fix may be offered (a FileChange names its bundle). */
  readonly bundle?: string | undefined
}

export interface SkillCheck {
  readonly skill: SkillMd
  readonly properties: SkillProperties
  /** In check order: the reference validator's checks first, then akm's warnings. */
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

const hasWhenToUse = (description: string, phrases: ReadonlyArray<string>): boolean => {
  const lower = description.toLowerCase()
  return phrases.some((phrase) => lower.includes(phrase.toLowerCase()))
}

/** Approximate tokens as ceil(characters / 4): no tokenizer is needed to index (R-IDX-5). */
export const approximateTokens = (text: string): number => Math.ceil(codePointLength(text) / 4)

export const checkSkillMd = (input: SkillCheckInput): SkillCheck => {
  const { book, path } = input
  const skill = parseSkillMd(input.text)
  const out: Array<Diagnostic> = []
  const report = (code: string, message: string, line?: number, fix?: ReadonlyArray<FileChange>) => out.push(...book.report(code, path, message, { line, fix }))
  if (skill.problem !== undefined || skill.fields === undefined) {
    const problem = skill.problem ?? { code: "invalid-frontmatter", message: "the frontmatter must be a mapping of keys to values", line: 1 }
    report(problem.code, problem.message, problem.line)
    return { skill, properties: {}, diagnostics: out }
  }
  const fields = skill.fields
  const lineOf = (key: string): number => skill.frontmatter.keyLines[key] ?? 1

  // skills-ref order: unexpected keys, name, directory, description, compatibility.
  if (book.has("unexpected-field")) {
    const allowed = new Set(book.terms("unexpected-field"))
    for (const key of Object.keys(fields).filter((k) => !allowed.has(k)).sort()) {
      report("unexpected-field", `unexpected frontmatter key \`${key}\`; allowed keys: ${[...allowed].join(", ")}`, lineOf(key))
    }
  }

  let name: string | undefined
  if (!("name" in fields)) report("missing-name", "the frontmatter has no `name`", 1)
  else {
    const raw = scalarText(fields["name"])
    if (raw === undefined) report("invalid-name", "`name` must be a string", lineOf("name"))
    else if (raw.trim() === "") report("missing-name", "`name` must be a non-empty string", lineOf("name"))
    else {
      name = normalizeSkillName(raw)
      for (const problem of skillNameProblems(raw, book.limit("invalid-name", "characters"))) report("invalid-name", problem, lineOf("name"))
      if (input.dirName !== undefined && input.dirName.normalize("NFKC") !== name) {
        // No fix here: the name is the skill's identity, so the fix (renaming the folder) is built
        // where the skill's files are known (skillDirectory.ts) and only ever proposed for review.
        report("name-directory-mismatch", `directory '${input.dirName}' must match the skill name '${name}'`, lineOf("name"))
      }
    }
  }

  let description: string | undefined
  if (!("description" in fields)) report("missing-description", "the frontmatter has no `description`", 1)
  else {
    const raw = scalarText(fields["description"])
    if (raw === undefined || raw.trim() === "") report("missing-description", "`description` must be a non-empty string", lineOf("description"))
    else {
      description = raw
      const limit = book.limit("description-too-long", "characters")
      const length = codePointLength(raw)
      if (limit !== undefined && length > limit) report("description-too-long", `\`description\` is ${length} characters long; the limit is ${limit}`, lineOf("description"))
    }
  }

  if ("compatibility" in fields) {
    const raw = scalarText(fields["compatibility"])
    const limit = book.limit("compatibility-too-long", "characters")
    if (raw === undefined) report("compatibility-too-long", "`compatibility` must be a string", lineOf("compatibility"))
    else if (limit !== undefined && codePointLength(raw) > limit) report("compatibility-too-long", `\`compatibility\` is ${codePointLength(raw)} characters long; the limit is ${limit}`, lineOf("compatibility"))
  }

  const metadata = fields["metadata"]
  if (metadata !== undefined && metadata !== "" && metadata !== null) {
    if (!isMapping(metadata)) report("invalid-metadata", "`metadata` must be a mapping of string keys to string values", lineOf("metadata"))
    else {
      const nested = Object.entries(metadata).filter(([, v]) => scalarText(v) === undefined).map(([k]) => k)
      if (nested.length > 0) report("invalid-metadata", `\`metadata\` values must be strings; not: ${nested.join(", ")}`, lineOf("metadata"))
    }
  }

  // akm's warnings, for every host.
  const body = skill.body.replace(/\n+$/, "")
  const lines = body === "" ? 0 : body.split("\n").length
  const tokens = approximateTokens(body)
  const maxLines = book.limit("body-too-long", "lines")
  const maxTokens = book.limit("body-too-long", "tokens")
  if ((maxLines !== undefined && lines > maxLines) || (maxTokens !== undefined && tokens > maxTokens)) {
    report("body-too-long", `the body has ${lines} lines and about ${tokens} tokens; keep it under ${maxLines ?? "∞"} lines and ${maxTokens ?? "∞"} tokens`, skill.bodyLine)
  }
  if (description !== undefined && book.has("missing-when-to-use") && !("when_to_use" in fields) && !hasWhenToUse(description, book.terms("missing-when-to-use"))) {
    report("missing-when-to-use", "`description` does not say when to use the skill (no phrase such as \"Use when …\")", lineOf("description"))
  }
  if (name !== undefined) {
    const reserved = book.terms("name-reserved-word").filter((word) => name!.toLowerCase().includes(word.toLowerCase()))
    if (reserved.length > 0) report("name-reserved-word", `\`name\` contains the reserved word${reserved.length > 1 ? "s" : ""} ${reserved.map((w) => `'${w}'`).join(", ")}`, lineOf("name"))
    if (/<\/?[A-Za-z][^<>]*>/.test(name)) report("name-xml-tag", "`name` contains an XML tag", lineOf("name"))
  }

  return { skill, properties: skillProperties(fields), diagnostics: out }
}
