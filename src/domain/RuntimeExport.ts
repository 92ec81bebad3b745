/**
 * Runtime exports and bindings (spec 07 §1). An export is something a bundle
 * offers to run or inject — an env file, a workflow, a task, a script; a
 * binding is the operator's local approval of one export at one digest.
 * Installing a bundle runs nothing (R-RT-1); only a binding or an explicit
 * invocation by the operator does (R-RT-2).
 */

import type { WorkflowPlan } from "./WorkflowPlan.js"

export const EXPORT_KINDS = ["workflow", "task", "environment", "script", "agent", "command", "skill"] as const
export type ExportKind = (typeof EXPORT_KINDS)[number]

export interface ExportRequirements {
  /** Env key names the export reads or defines (names only, never values). */
  readonly env?: ReadonlyArray<string>
  /** Parameter names a workflow or task takes. */
  readonly params?: ReadonlyArray<string>
}

export interface RuntimeExport {
  /** The concept id inside the bundle. */
  readonly id: string
  readonly kind: ExportKind
  /** `bundle//conceptId`. */
  readonly ref: string
  /** sha256 of the definition's bytes: what a binding pins (R-RT-3). */
  readonly digest: string
  readonly requirements: ExportRequirements
  /**
   * The definition as a reviewer may read it, for the diff shown when an
   * upstream change is refused: for an env file its key names and public
   * descriptions only, never a value.
   */
  readonly definition: string
  /** A workflow without lint errors: the plan `akm workflow run` freezes (spec 07 §2). */
  readonly plan?: WorkflowPlan
}

/** A reference to a credential: `env:VAR` (the operator's environment) or `secret:<ref>` (spec 01 §6). */
export const CREDENTIAL_REFERENCE = /^(?:env:[A-Za-z_][A-Za-z0-9_]*|secret:\S+)$/

export interface Binding {
  readonly alias: string
  readonly exportRef: string
  readonly kind: ExportKind
  /** The approved digest: runs are refused while the export's digest differs (R-RT-3). */
  readonly digest: string
  /** The approved definition (as RuntimeExport.definition), to diff against an upstream change. */
  readonly definition: string
  readonly params: Readonly<Record<string, string>>
  /** KEY → `env:VAR` or `secret:<ref>`: references, never values. */
  readonly env: Readonly<Record<string, string>>
  /** The source kind of the bundle when bound (filesystem, git, npm, website). */
  readonly source: string
  readonly approvedAt: string
}

/** Aliases are short names the operator types: letters, digits, `-`, `_`, `.`. */
export const ALIAS = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

/** An alias for an export ref when none is given: its last path segment. */
export const defaultAlias = (exportRef: string): string => {
  const last = exportRef.slice(exportRef.lastIndexOf("/") + 1).replace(/[^A-Za-z0-9_.-]/g, "-")
  return /^[A-Za-z0-9]/.test(last) ? last.slice(0, 64) : `x${last}`.slice(0, 64)
}

/** `k=v` pairs of repeated flags; the first problem as a sentence, naming the flag and key only. */
export const parsePairs = (flag: string, pairs: ReadonlyArray<string>, check?: (key: string, value: string) => string | undefined): Record<string, string> | string => {
  const out: Record<string, string> = {}
  for (const pair of pairs) {
    const at = pair.indexOf("=")
    if (at <= 0) return `${flag} takes KEY=VALUE (got '${pair.slice(0, 40)}')`
    const key = pair.slice(0, at)
    const value = pair.slice(at + 1)
    const problem = check?.(key, value)
    if (problem !== undefined) return problem
    out[key] = value
  }
  return out
}
