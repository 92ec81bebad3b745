import { createHash } from "node:crypto"
import type { AuthoringContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { FileChange } from "../../../domain/FileChange.js"
import type { SkillRule } from "./rules.js"

/**
 * A rule table put to work (R-AD-3): checks report only through `report`,
 * which takes the severity from the row and reports nothing when the table has
 * no row for the code (the rule is off); `limit` and `terms` read the row's
 * numbers and words; `instructions` renders the same rows for authors.
 */
export interface RuleBook {
  readonly rules: ReadonlyArray<SkillRule>
  readonly has: (code: string) => boolean
  readonly limit: (code: string, name: string) => number | undefined
  readonly terms: (code: string) => ReadonlyArray<string>
  readonly report: (code: string, path: string, message: string, extra?: FindingExtra) => ReadonlyArray<Diagnostic>
  readonly instructions: string
}

export interface FindingExtra {
  readonly line?: number | undefined
  readonly fix?: ReadonlyArray<FileChange> | undefined
}

const renderRule = (rule: SkillRule): string => {
  const severity = `${rule.severity}${rule.strictSeverity === undefined ? "" : `; ${rule.strictSeverity} under --strict`}`
  const limits = Object.entries(rule.limits ?? {}).map(([name, value]) => `at most ${value} ${name}`)
  const terms = rule.terms === undefined || rule.terms.length === 0 ? [] : [`terms: ${rule.terms.map((t) => `\`${t}\``).join(", ")}`]
  const details = [...limits, ...terms]
  return `- \`${rule.code}\` (${severity}): ${rule.guidance}${details.length === 0 ? "" : ` (${details.join("; ")})`}`
}

export const makeRuleBook = (rules: ReadonlyArray<SkillRule>): RuleBook => {
  const byCode = new Map(rules.map((rule) => [rule.code, rule]))
  return {
    rules,
    has: (code) => byCode.has(code),
    limit: (code, name) => byCode.get(code)?.limits?.[name],
    terms: (code) => byCode.get(code)?.terms ?? [],
    report: (code, path, message, extra = {}) => {
      const rule = byCode.get(code)
      if (rule === undefined) return []
      return [{
        code,
        severity: rule.severity,
        path,
        message,
        ...(extra.line === undefined ? {} : { line: extra.line }),
        ...(extra.fix === undefined ? {} : { fix: extra.fix })
      }]
    },
    instructions: rules.map(renderRule).join("\n")
  }
}

export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/** JSON with object keys sorted at every depth, so equal data always hashes equal (R-AD-2). */
export const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

export interface AuthoringParts {
  readonly adapter: string
  readonly version: string
  readonly book: RuleBook
  /** What the bundle is and where things go, before the rule list. */
  readonly preamble: string
  readonly examples: ReadonlyArray<string>
  readonly allowedPaths: ReadonlyArray<string>
  readonly constraints: ReadonlyArray<string>
}

/** An AuthoringContext whose instructions and hash come from the rule table (R-AD-2, R-AD-3). */
export const authoringContextOf = (parts: AuthoringParts): AuthoringContext => ({
  adapter: parts.adapter,
  ruleSetVersion: parts.version,
  ruleHash: sha256(stableJson(parts.book.rules)),
  guidance: [],
  instructions: `${parts.preamble}\n\nRules:\n${parts.book.instructions}\n`,
  examples: parts.examples,
  allowedPaths: parts.allowedPaths,
  constraints: parts.constraints
})
