import { sha256Hex } from "./Digest.js"

/**
 * A workflow as `akm workflow run` executes it (spec 07 §2): the steps in
 * order, each with what it does, read once from the workflow file by its
 * adapter. A run freezes this plan (R-RT-4), so nothing here refers back to
 * the file.
 */

/** What a step does: runs a program, hands instructions to an agent, or waits for a confirmation. */
export type StepKind = "command" | "prompt" | "gate"

export const STEP_KINDS: ReadonlyArray<StepKind> = ["command", "prompt", "gate"]

export interface PlanStep {
  readonly id: string
  readonly title?: string | undefined
  readonly kind: StepKind
  /** command: argv; with `shell`, one string run by `sh -c`. `{{param}}` placeholders still in place. */
  readonly command?: ReadonlyArray<string> | undefined
  readonly shell?: boolean | undefined
  readonly cwd?: string | undefined
  /** A step's own time limit (command and gate checks), in milliseconds. */
  readonly timeoutMs?: number | undefined
  /** Extra attempts after a failed one (command steps). */
  readonly retries: number
  /** prompt: the instructions (the `prompt:` field, else the step's section text). */
  readonly prompt?: string | undefined
  /**
   * After the step's action: `none`, `confirm` (a `### gate` section or a
   * gate step without a check — `resume --confirm` passes it) or `check`
   * (an argv whose exit 0 passes it; otherwise it waits for `--confirm`).
   */
  readonly gate: "none" | "confirm" | "check"
  readonly check?: ReadonlyArray<string> | undefined
  /** What the `### gate` section says must be true, shown while the run waits. */
  readonly gateText?: string | undefined
}

export interface PlanParam {
  readonly name: string
  readonly type: string
  readonly default?: string | undefined
  readonly values?: ReadonlyArray<string> | undefined
}

export interface WorkflowPlan {
  readonly steps: ReadonlyArray<PlanStep>
  readonly params: ReadonlyArray<PlanParam>
  /** budget.steps, when the workflow sets it: the default of --max-steps. */
  readonly maxSteps?: number | undefined
  /** budget.minutes (or a duration), in milliseconds: the default of --timeout. */
  readonly timeoutMs?: number | undefined
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `30s`, `5m`, `1h30m`, `250ms` (or a bare number of `bareUnit`) → milliseconds; undefined when it is not one. */
export const parseDuration = (value: unknown, bareUnit: "s" | "m" = "s"): number | undefined => {
  if (typeof value === "number") return value > 0 && Number.isFinite(value) ? value * UNITS[bareUnit]! : undefined
  if (typeof value !== "string") return undefined
  const text = value.trim()
  if (/^\d+(?:\.\d+)?$/.test(text)) return parseDuration(Number(text), bareUnit)
  if (!/^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/.test(text)) return undefined
  let total = 0
  for (const match of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(match[1]) * UNITS[match[2]!]!
  return total > 0 ? total : undefined
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g

/** The param names a text refers to as `{{name}}`. */
export const placeholders = (text: string): ReadonlyArray<string> => [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!)

/**
 * `{{name}}` → the param's value, inside one argv element (never re-split,
 * never through a shell unless the step declares `shell: true`). Unknown
 * names stay as written: lint reports them.
 */
export const substitute = (text: string, params: Readonly<Record<string, string>>): string =>
  text.replace(PLACEHOLDER, (whole, name: string) => params[name] ?? whole)

/** The sha256 of a plan's canonical JSON: what the frozen run records and checks. */
export const planHash = (plan: WorkflowPlan): string => sha256Hex(JSON.stringify(plan))
