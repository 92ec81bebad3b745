/**
 * Rule frontmatter (spec 08 §4). Every key is optional — a rule without
 * frontmatter is plain text — but a key that is present must have its shape,
 * because `rules conflicts`, `rules evolve` and the brief read them.
 */
export interface RuleFinding {
  readonly message: string
  readonly line?: number
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)
const isId = (value: unknown): boolean => (typeof value === "string" && value.trim() !== "") || typeof value === "number"
const isIdList = (value: unknown): boolean => isId(value) || (Array.isArray(value) && value.every(isId))
const isDate = (value: unknown): boolean => typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))

const CHECKS: ReadonlyArray<{ readonly key: string; readonly ok: (value: unknown) => boolean; readonly expected: string }> = [
  { key: "id", ok: isId, expected: "a string such as \"07\"" },
  { key: "introduced_by", ok: isId, expected: "a ref such as failure/<id>" },
  { key: "supersedes", ok: isIdList, expected: "a list of rule ids" },
  { key: "superseded_by", ok: isId, expected: "a rule id" },
  { key: "caused", ok: isIdList, expected: "a list of refs such as failure/<id>" },
  {
    key: "scope",
    ok: (value) => (typeof value === "string" && value.trim() !== "") || (Array.isArray(value) && value.every((v) => typeof v === "string" && v.trim() !== "")),
    expected: "a list of path globs such as src/billing/**"
  },
  {
    key: "mandates",
    ok: (value) => Array.isArray(value) && value.every((m) => isRecord(m) && typeof m["must"] === "boolean" && typeof m["subject"] === "string" && m["subject"].trim() !== ""),
    expected: "a list of { must: true|false, subject: text }"
  },
  {
    key: "revisit_when",
    ok: (value) => isRecord(value) && (isDate(value["date"]) || (typeof value["pathMissing"] === "string" && value["pathMissing"].trim() !== "")) &&
      Object.keys(value).every((k) => k === "date" || k === "pathMissing"),
    expected: "{ date: YYYY-MM-DD } or { pathMissing: <glob> }"
  }
]

export const checkRuleFrontmatter = (data: Readonly<Record<string, unknown>>, keyLines: Readonly<Record<string, number>>): ReadonlyArray<RuleFinding> =>
  CHECKS.filter(({ key, ok }) => data[key] !== undefined && data[key] !== null && !ok(data[key])).map(({ key, expected }) => ({
    message: `\`${key}\` must be ${expected}`,
    ...(keyLines[key] === undefined ? {} : { line: keyLines[key] })
  }))

/** A list field as strings (a single value becomes a one-element list). */
export const ruleList = (value: unknown): ReadonlyArray<string> =>
  value === undefined || value === null ? [] : (Array.isArray(value) ? value : [value]).filter((v) => typeof v === "string" || typeof v === "number").map(String)
