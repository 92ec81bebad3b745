import { Either } from "effect"
import { isMap, LineCounter, parseDocument } from "yaml"
import { scheduleProblem } from "./CronSchedule.js"
import { isDangerousEnvKey } from "./DangerousEnvKeys.js"
import { parse as parseRef } from "./Ref.js"

/** Drops a UTF-8 BOM and normalises CRLF so line numbers match what editors show (as adapters/core/Frontmatter.ts). */
const normalizeText = (text: string): string => {
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  return unmarked.includes("\r") ? unmarked.replace(/\r\n?/g, "\n") : unmarked
}

/**
 * A scheduled task definition (spec 03 "akm-task", spec 07 §3): YAML with
 * `version: 2`, a `schedule`, exactly one target (`workflow`, `prompt` or
 * `command`) and optional `params`, `timeout`, `env` (key names) and
 * `enabled`. Reading one never runs, schedules or enables anything (R-RT-1).
 */
export type TaskCheck = "invalid-task-yaml" | "invalid-schedule" | "dangerous-env-key"

export interface TaskFinding {
  readonly check: TaskCheck
  readonly message: string
  readonly line?: number
}

export const TASK_TARGETS = ["workflow", "prompt", "command"] as const
export type TaskTargetKind = typeof TASK_TARGETS[number]

export interface TaskDefinition {
  readonly data: Readonly<Record<string, unknown>> | undefined
  readonly schedule?: string
  readonly target?: { readonly kind: TaskTargetKind; readonly value: string }
  readonly params: ReadonlyArray<string>
  readonly envKeys: ReadonlyArray<string>
  readonly enabled?: boolean
  readonly findings: ReadonlyArray<TaskFinding>
}

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)
const nonEmptyString = (value: unknown): value is string => typeof value === "string" && value.trim() !== ""

export const readTask = (input: string): TaskDefinition => {
  const findings: Array<TaskFinding> = []
  const counter = new LineCounter()
  const doc = parseDocument(normalizeText(input), { lineCounter: counter, uniqueKeys: true, prettyErrors: true })
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!
    const line = error.linePos?.[0]?.line
    // A stack overflow's position depends on the stack left, so it is reported without one (scans stay deterministic).
    const why = error.message.includes("Maximum call stack size exceeded") ? "it is nested too deeply to read" : error.message.split("\n")[0]
    findings.push({ check: "invalid-task-yaml", message: `the file is not valid YAML: ${why}`, ...(line === undefined ? {} : { line }) })
    return { data: undefined, params: [], envKeys: [], findings }
  }
  if (!isMap(doc.contents)) {
    findings.push({ check: "invalid-task-yaml", message: "a task is a YAML mapping with version, schedule and one of workflow, prompt or command" })
    return { data: undefined, params: [], envKeys: [], findings }
  }
  const lines: Record<string, number> = {}
  for (const pair of doc.contents.items) {
    const key = pair.key as { value?: unknown; range?: [number, number, number] } | null
    if (key?.range !== undefined) lines[String(key.value)] = counter.linePos(key.range[0]).line
  }
  let data: Record<string, unknown>
  try {
    data = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>
  } catch (error) {
    findings.push({ check: "invalid-task-yaml", message: `the file cannot be read: ${(error as Error).message}` })
    return { data: undefined, params: [], envKeys: [], findings }
  }
  const fail = (check: TaskCheck, key: string, message: string) => findings.push({ check, message, ...(lines[key] === undefined ? {} : { line: lines[key] }) })

  if (data["version"] === undefined) fail("invalid-task-yaml", "version", "version is missing; write `version: 2`")
  else if (data["version"] !== 2 && data["version"] !== "2") fail("invalid-task-yaml", "version", `version must be 2, found ${JSON.stringify(data["version"])}`)

  const rawSchedule = data["schedule"]
  let schedule: string | undefined
  if (rawSchedule === undefined || rawSchedule === null || rawSchedule === "") fail("invalid-task-yaml", "schedule", "schedule is missing; write a cron expression (`0 6 * * 1-5`) or a macro (`@daily`)")
  else if (typeof rawSchedule !== "string") fail("invalid-task-yaml", "schedule", "schedule must be a string; quote cron expressions")
  else {
    schedule = rawSchedule.trim()
    const problem = scheduleProblem(schedule)
    if (problem !== undefined) fail("invalid-schedule", "schedule", `schedule '${schedule}': ${problem}`)
  }

  const present = TASK_TARGETS.filter((kind) => data[kind] !== undefined && data[kind] !== null)
  let target: TaskDefinition["target"]
  if (present.length === 0) {
    findings.push({ check: "invalid-task-yaml", message: "a task runs exactly one of workflow, prompt or command; none is set" })
  } else if (present.length > 1) {
    fail("invalid-task-yaml", present[1]!, `a task runs exactly one of workflow, prompt or command; found ${present.join(" and ")}`)
  } else {
    const kind = present[0]!
    const value = data[kind]
    if (kind === "command" && Array.isArray(value)) {
      if (value.length === 0 || !value.every(nonEmptyString)) fail("invalid-task-yaml", kind, "command as a list is an argv: non-empty strings, at least one")
      else target = { kind, value: value.join(" ") }
    } else if (!nonEmptyString(value)) {
      fail("invalid-task-yaml", kind, `${kind} must be a non-empty string${kind === "command" ? " or a list of argv strings" : ""}`)
    } else if (kind === "workflow" && Either.isLeft(parseRef(value.trim()))) {
      fail("invalid-task-yaml", kind, `workflow '${value.trim()}' is not a ref (write bundle//path/to/workflow or path/to/workflow)`)
    } else {
      target = { kind, value: value.trim() }
    }
  }

  const params = data["params"]
  if (params !== undefined && params !== null && !isRecord(params)) fail("invalid-task-yaml", "params", "params must be a mapping of parameter name to value")

  const timeout = data["timeout"]
  if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0) && !(typeof timeout === "string" && DURATION.test(timeout.trim()))) {
    fail("invalid-task-yaml", "timeout", "timeout must be a positive number of seconds or a duration such as 30s, 5m or 1h30m")
  }

  const env = data["env"]
  const envKeys: Array<string> = []
  if (env !== undefined && env !== null) {
    if (!Array.isArray(env)) {
      fail("invalid-task-yaml", "env", "env lists key names (e.g. [API_TOKEN]); values are bound locally with `akm bind --env`, never written here")
    } else {
      for (const key of env) {
        if (typeof key !== "string" || !ENV_KEY.test(key)) fail("invalid-task-yaml", "env", `env entry ${JSON.stringify(key)} is not a key name`)
        else {
          envKeys.push(key)
          if (isDangerousEnvKey(key)) fail("dangerous-env-key", "env", `${key} changes how programs load or run; \`akm env run\` refuses it for bundles from git, npm or website sources`)
        }
      }
    }
  }

  const enabled = data["enabled"]
  if (enabled !== undefined && typeof enabled !== "boolean") fail("invalid-task-yaml", "enabled", "enabled must be true or false (it is advisory: enabling is `akm task enable`)")

  for (const key of ["name", "description"]) {
    if (data[key] !== undefined && typeof data[key] !== "string") fail("invalid-task-yaml", key, `${key} must be a string`)
  }

  return {
    data,
    ...(schedule === undefined ? {} : { schedule }),
    ...(target === undefined ? {} : { target }),
    params: isRecord(params) ? Object.keys(params) : [],
    envKeys,
    ...(typeof enabled === "boolean" ? { enabled } : {}),
    findings
  }
}
