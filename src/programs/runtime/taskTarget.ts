import { Effect, Either } from "effect"
import { NotFound, UsageError } from "../../domain/Errors.js"
import { shellQuote } from "../../domain/ShellQuote.js"
import { readTask, type TaskTargetKind } from "../../domain/TaskDefinition.js"
import { resolveTarget } from "../show.js"

/** A task definition as `akm task` runs it: the schedule, one target, params and a timeout. */
export interface ParsedTask {
  readonly schedule: string
  readonly kind: TaskTargetKind
  /** A command string, an argv list, a workflow ref or a prompt. */
  readonly value: string | ReadonlyArray<string>
  readonly params: Readonly<Record<string, string>>
  readonly timeoutMs?: number | undefined
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `timeout:` as milliseconds: seconds as a number, or 30s / 5m / 1h30m. */
const timeoutMs = (raw: unknown): number | undefined => {
  if (typeof raw === "number") return raw * 1000
  if (typeof raw !== "string") return undefined
  let total = 0
  for (const m of raw.trim().matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(m[1]) * UNITS[m[2]!]!
  return total > 0 ? total : undefined
}

/**
 * Reads a task's text (the approved definition, or the file as it is now) as
 * something to run; an invalid one is refused naming the file and line, and
 * nothing is scheduled or run.
 */
export const parseTask = (text: string, where: string): Either.Either<ParsedTask, UsageError> => {
  const task = readTask(text)
  const error = task.findings.find((f) => f.check !== "dangerous-env-key")
  if (error !== undefined || task.data === undefined || task.schedule === undefined || task.target === undefined) {
    return Either.left(new UsageError({
      message: `${where}${error?.line === undefined ? "" : `:${error.line}`}: ${error?.message ?? "not a task definition"}; nothing was scheduled or run`,
      hint: "fix the task file (`akm lint` lists every problem), then try again"
    }))
  }
  const raw = task.data[task.target.kind]
  const params = task.data["params"]
  return Either.right({
    schedule: task.schedule,
    kind: task.target.kind,
    value: Array.isArray(raw) ? raw.map(String) : String(raw).trim(),
    params: params !== null && typeof params === "object" && !Array.isArray(params)
      ? Object.fromEntries(Object.entries(params as Record<string, unknown>).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]))
      : {},
    timeoutMs: timeoutMs(task.data["timeout"])
  })
}

/** A workflow ref as written in a task: `bundle//path`, or a path in the task's own bundle. */
export const qualifyWorkflow = (value: string, bundle: string): string => (value.includes("//") ? value : `${bundle}//${value}`)

/** The workflow a task names must be indexed as a workflow; otherwise a clear refusal naming it. */
export const checkWorkflow = Effect.fn("task.checkWorkflow")(function* (value: string, bundle: string) {
  const candidates = value.includes("//") ? [value] : [qualifyWorkflow(value, bundle), value]
  for (const ref of candidates) {
    const found = yield* Effect.either(resolveTarget(ref))
    if (Either.isRight(found) && found.right.doc.type === "workflow") return found.right.doc.ref
  }
  return yield* new NotFound({
    what: "workflow",
    name: value,
    message: `the task names the workflow '${value}', which is not an indexed workflow; nothing was scheduled or run`,
    hint: "check the name with `akm search --type workflow`, create it with `akm create workflow`, or run `akm index` if it was just added"
  })
})

/** `akm …` in a command means this akm: the absolute node and akm paths, since cron's PATH rarely has it. */
export const commandArgv = (value: string | ReadonlyArray<string>, akm: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (typeof value !== "string") return value[0] === "akm" ? [...akm, ...value.slice(1)] : value
  const line = /^akm(?=\s|$)/.test(value) ? `${akm.map(shellQuote).join(" ")}${value.slice(3)}` : value
  // A command string is a shell line, as cron itself would run it.
  return ["/bin/sh", "-c", line]
}
