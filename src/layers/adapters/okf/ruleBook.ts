import { createHash } from "node:crypto"
import type { AdapterRule } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"

/**
 * An adapter's rule table put to work (R-AD-3): validators emit diagnostics
 * only through `diagnostic`, which takes the severity from the table and emits
 * nothing for a code the table does not hold, and authoring instructions are
 * rendered from the same rows. Changing a row therefore changes both what a
 * model is told and what is enforced.
 */
export interface RuleBook {
  readonly rules: ReadonlyArray<AdapterRule>
  /** Zero or one diagnostic: none when the table has no row for `code` (the rule is off). */
  readonly diagnostic: (code: string, at: { readonly path: string; readonly message: string; readonly line?: number | undefined }) => ReadonlyArray<Diagnostic>
}

export const ruleBook = (rules: ReadonlyArray<AdapterRule>): RuleBook => {
  const byCode = new Map(rules.map((rule) => [rule.code, rule]))
  return {
    rules,
    diagnostic: (code, at) => {
      const rule = byCode.get(code)
      if (rule === undefined) return []
      return [{ code, severity: rule.severity, path: at.path, message: at.message, ...(at.line === undefined ? {} : { line: at.line }) }]
    }
  }
}

/** The rule rows as an instruction list, one line per rule, in table order. */
export const ruleInstructions = (rules: ReadonlyArray<AdapterRule>): string =>
  rules
    .map((rule) => `- ${rule.guidance} (${rule.code}: ${rule.severity}${rule.strictSeverity === undefined ? "" : `, ${rule.strictSeverity} under --strict`})`)
    .join("\n")

/** JSON with object keys sorted, so equal values always hash the same (R-AD-2). */
export const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")
