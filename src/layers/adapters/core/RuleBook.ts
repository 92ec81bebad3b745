import { Effect } from "effect"
import { AuthoringRefused, type AdapterRule, type AuthoringContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { sha256Hex as sha256 } from "../../../domain/Digest.js"
import type { FileChange } from "../../../domain/FileChange.js"

/**
 * An adapter's rule table put to work (R-AD-3). Validators report only through
 * `report`, which takes the severity from the row and reports nothing when the
 * table has no row for the code (the rule is off); `limit` and `terms` read
 * the numbers and words a row carries; `instructions` renders the same rows
 * for authors. A row removed stops being enforced and stops being taught; a
 * severity changed changes both.
 */

/** A rule row, optionally carrying the numbers and word lists its check enforces. */
export interface RuleRow extends AdapterRule {
  /** Numeric limits the check enforces, e.g. `{ characters: 1024 }`. */
  readonly limits?: Readonly<Record<string, number>>
  /** Words or keys the check uses (allowed keys, reserved words, phrases). */
  readonly terms?: ReadonlyArray<string>
}

export interface FindingExtra {
  readonly line?: number | undefined
  readonly ref?: string | undefined
  readonly fix?: ReadonlyArray<FileChange> | undefined
}

export interface RuleBook {
  readonly rules: ReadonlyArray<RuleRow>
  readonly has: (code: string) => boolean
  readonly limit: (code: string, name: string) => number | undefined
  readonly terms: (code: string) => ReadonlyArray<string>
  /** The diagnostic for a finding, or none when the table has no row for `code`. */
  readonly report: (code: string, path: string, message: string, extra?: FindingExtra) => ReadonlyArray<Diagnostic>
  /** The rule list as authors are told it, one line per row, in table order. */
  readonly instructions: string
}

/** "- `code` (severity; strict under --strict): guidance (at most N unit; terms: …)". */
const renderRule = (rule: RuleRow): string => {
  const severity = `${rule.severity}${rule.strictSeverity === undefined ? "" : `; ${rule.strictSeverity} under --strict`}`
  const limits = Object.entries(rule.limits ?? {}).map(([name, value]) => `at most ${value} ${name}`)
  const terms = rule.terms === undefined || rule.terms.length === 0 ? [] : [`terms: ${rule.terms.map((t) => `\`${t}\``).join(", ")}`]
  const details = [...limits, ...terms]
  return `- \`${rule.code}\` (${severity}): ${rule.guidance}${details.length === 0 ? "" : ` (${details.join("; ")})`}`
}

export const makeRuleBook = (rules: ReadonlyArray<RuleRow>): RuleBook => {
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
        ...(extra.ref === undefined ? {} : { ref: extra.ref }),
        ...(extra.fix === undefined ? {} : { fix: extra.fix })
      }]
    },
    instructions: rules.map(renderRule).join("\n")
  }
}

export { sha256 }

/** JSON with object keys sorted at every depth, so equal data always hashes equal (R-AD-2). */
export const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

/** What authors are told about a format besides its rules. */
export interface AuthoringParts {
  /** What the format is and how to write it, before the rule list. */
  readonly preamble: string
  /** Files of the bundle that state its own conventions (a wiki's schema.md); hashed into ruleHash. */
  readonly guidance?: ReadonlyArray<{ readonly path: string; readonly text: string }>
  readonly examples: ReadonlyArray<string>
  readonly allowedPaths: ReadonlyArray<string>
  readonly constraints: ReadonlyArray<string>
}

/**
 * An AuthoringContext whose instructions and ruleHash both come from the rule
 * table (R-AD-2, R-AD-3): the hash covers the adapter, its version, every row
 * and the guidance files' hashes, so identical inputs give identical hashes.
 */
export const authoringContextOf = (adapter: { readonly id: string; readonly version: string }, book: RuleBook, parts: AuthoringParts): AuthoringContext => {
  const guidance = (parts.guidance ?? []).map((doc) => ({ path: doc.path, hash: sha256(doc.text), text: doc.text }))
  return {
    adapter: adapter.id,
    ruleSetVersion: adapter.version,
    ruleHash: sha256(stableJson({ adapter: adapter.id, version: adapter.version, rules: book.rules, guidance: guidance.map(({ path, hash }) => ({ path, hash })) })),
    guidance,
    instructions: `${parts.preamble.trim()}\n\nRules (code, severity, what to do):\n${book.instructions}\n`,
    examples: parts.examples,
    allowedPaths: parts.allowedPaths,
    constraints: parts.constraints
  }
}

/** Refuses authored text the table calls an error, with the first failing row's guidance as the hint (R-AD-3). */
export const refuseErrors = (what: string, diagnostics: ReadonlyArray<Diagnostic>, book: RuleBook): Effect.Effect<void, AuthoringRefused> => {
  const errors = diagnostics.filter((d) => d.severity === "error")
  if (errors.length === 0) return Effect.void
  const rule = book.rules.find((r) => r.code === errors[0]!.code)
  return Effect.fail(new AuthoringRefused(`the new ${what} would not be valid: ${errors.map((d) => `${d.message} (${d.code})`).join("; ")}`, rule?.guidance ?? "fix the frontmatter"))
}
