import { createHash } from "node:crypto"
import type { AdapterRule, AuthoringContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import type { FileChange } from "../../../domain/FileChange.js"

/**
 * One adapter's rule table put to work (R-AD-3): validators report through
 * `report`, authoring contexts are told `instructions`, and both read the same
 * rows — a row removed stops being enforced and stops being taught; a
 * severity changed is changed in both places.
 *
 * Shared by the akm family of adapters (akm, dotenv, akm-workflow, akm-task,
 * llm-wiki, project); a candidate for src/layers/adapters/core/.
 */
export interface RuleBook {
  readonly rules: ReadonlyArray<AdapterRule>
  readonly has: (code: string) => boolean
  /** The diagnostic for a finding, or none when the table has no row for `code`. */
  readonly report: (code: string, path: string, message: string, extra?: FindingExtra) => ReadonlyArray<Diagnostic>
  /** The rule list as authors are told it, one line per row. */
  readonly instructions: string
}

export interface FindingExtra {
  readonly line?: number | undefined
  readonly ref?: string | undefined
  readonly fix?: ReadonlyArray<FileChange> | undefined
}

export const makeRuleBook = (rules: ReadonlyArray<AdapterRule>): RuleBook => {
  const byCode = new Map(rules.map((rule) => [rule.code, rule]))
  return {
    rules,
    has: (code) => byCode.has(code),
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
    instructions: rules
      .map((rule) => `- \`${rule.code}\` (${rule.severity}${rule.strictSeverity === undefined ? "" : `; ${rule.strictSeverity} under --strict`}): ${rule.guidance}`)
      .join("\n")
  }
}

export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/** JSON with object keys sorted at every depth, so equal data always hashes equal (R-AD-2). */
export const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

export interface AuthoringInput {
  readonly adapter: string
  readonly version: string
  readonly book: RuleBook
  /** What the format is and how to write it, before the rule list. */
  readonly preamble: string
  readonly guidance?: ReadonlyArray<{ readonly path: string; readonly text: string }>
  readonly examples: ReadonlyArray<string>
  readonly allowedPaths: ReadonlyArray<string>
  readonly constraints: ReadonlyArray<string>
}

/** An AuthoringContext whose instructions and ruleHash both come from the rule table. */
export const authoringContextOf = (input: AuthoringInput): AuthoringContext => {
  const guidance = (input.guidance ?? []).map((doc) => ({ path: doc.path, hash: sha256(doc.text), text: doc.text }))
  return {
    adapter: input.adapter,
    ruleSetVersion: input.version,
    ruleHash: sha256(stableJson({ adapter: input.adapter, version: input.version, rules: input.book.rules, guidance: guidance.map(({ path, hash }) => ({ path, hash })) })),
    guidance,
    instructions: `${input.preamble.trim()}\n\nRules (code, severity, what to do):\n${input.book.instructions}\n`,
    examples: input.examples,
    allowedPaths: input.allowedPaths,
    constraints: input.constraints
  }
}
