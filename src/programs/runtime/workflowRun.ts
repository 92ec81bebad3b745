import { Clock, Effect, Option, Random, Redacted } from "effect"
import * as path from "node:path"
import { sha256Hex } from "../../domain/Digest.js"
import { Conflict, NotFound, UsageError } from "../../domain/Errors.js"
import { parsePairs, type Binding } from "../../domain/RuntimeExport.js"
import { ExportNotBound, WorkflowInvalid, WorkflowPlanTampered } from "../../domain/RuntimeErrors.js"
import { shellQuote } from "../../domain/ShellQuote.js"
import { parseDuration, planHash, substitute, type PlanStep, type WorkflowPlan } from "../../domain/WorkflowPlan.js"
import type { FrozenRun, RunRecord, StepState } from "../../domain/WorkflowRun.js"
import { Bindings } from "../../services/Bindings.js"
import { ChildNotStarted } from "../../services/ChildProcess.js"
import { Credentials } from "../../services/Credentials.js"
import { LogStore } from "../../services/LogStore.js"
import { Progress } from "../../services/Progress.js"
import { Redactor } from "../../services/Redactor.js"
import { StepProcess } from "../../services/StepProcess.js"
import { WorkflowRuns } from "../../services/WorkflowRuns.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { recordEvent } from "../events.js"
import { resolveBundle } from "../scan.js"
import { checkBinding } from "./bind.js"
import { exportOf } from "./exportOf.js"

/** The most output of one attempt kept in logs.db: its first and last 32 KiB. */
export const MAX_STEP_OUTPUT = 64 * 1024
/** A gate's check command gets this long unless its step sets a timeout. */
const CHECK_TIMEOUT_MS = 10 * 60_000
/** What a prompt step printed for the calling agent is marked with, so `resume` knows the agent has it. */
const HANDED_TO_AGENT = "handed to the calling agent"

export interface RunOptions {
  readonly maxSteps?: number | undefined
  readonly timeout?: string | undefined
  readonly interactiveAgent: boolean
}

export interface RunInput extends RunOptions {
  readonly target: string
  readonly params: ReadonlyArray<string>
  readonly workdir: string
}

/** What a run or resume reports: the run's state now, and what it waits for. */
export interface RunReport {
  readonly id: string
  readonly workflow: string
  readonly status: RunRecord["status"]
  readonly message?: string | undefined
  readonly steps: ReadonlyArray<StepState>
  readonly waiting?: { readonly step: string; readonly kind: "gate" | "prompt"; readonly text: string } | undefined
  /** resume of a run that had already finished: nothing ran. */
  readonly unchanged?: true
}

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** `20261201-230501-3f9a1c`: sortable by start time, unique enough for one workspace. */
const newRunId = Effect.gen(function* () {
  const stamp = (yield* now).replace(/[-:]/g, "").replace("T", "-").slice(0, 15)
  let suffix = ""
  for (let i = 0; i < 6; i++) suffix += (yield* Random.nextIntBetween(0, 16)).toString(16)
  return `${stamp}-${suffix}`
})

const TYPE_CHECKS: Readonly<Record<string, (value: string) => boolean>> = {
  integer: (v) => /^-?\d+$/.test(v),
  number: (v) => v.trim() !== "" && Number.isFinite(Number(v)),
  boolean: (v) => v === "true" || v === "false"
}

/** --param over the binding's params over the workflow's defaults; unknown, missing and mistyped params refused by name. */
const resolveParams = (ref: string, plan: WorkflowPlan, given: Readonly<Record<string, string>>, bound: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const names = new Set(plan.params.map((p) => p.name))
    const unknown = Object.keys(given).filter((name) => !names.has(name))
    if (unknown.length > 0) {
      return yield* new UsageError({ message: `${ref} has no param ${unknown.map((n) => `'${n}'`).join(", ")}`, hint: `its params: ${[...names].join(", ") || "(none)"}` })
    }
    const values: Record<string, string> = {}
    const missing: Array<string> = []
    for (const param of plan.params) {
      const value = given[param.name] ?? bound[param.name] ?? param.default
      if (value === undefined) {
        missing.push(param.name)
        continue
      }
      const check = TYPE_CHECKS[param.type]
      if ((check !== undefined && !check(value)) || (param.type === "enum" && param.values !== undefined && !param.values.includes(value))) {
        return yield* new UsageError({
          message: `--param ${param.name}='${value.slice(0, 40)}' is not ${param.type === "enum" ? `one of ${(param.values ?? []).join(", ")}` : `a ${param.type}`}`,
          hint: `give ${param.name} a ${param.type} value`
        })
      }
      values[param.name] = value
    }
    if (missing.length > 0) {
      return yield* new UsageError({ message: `${ref} needs ${missing.map((n) => `'${n}'`).join(", ")}, which ${missing.length === 1 ? "has" : "have"} no value and no default; nothing was run`, hint: `pass ${missing.map((n) => `--param ${n}=…`).join(" ")}` })
    }
    return values
  })

/** `<alias|ref>` → the workflow export and the binding it runs through (R-RT-1..3, as `env run`). */
const locateWorkflow = (target: string) =>
  Effect.gen(function* () {
    const store = yield* Bindings
    const byAlias = target.includes("/") ? undefined : yield* store.get(target)
    const located = yield* exportOf(byAlias?.exportRef ?? target)
    if (located.export.kind !== "workflow") {
      return yield* new UsageError({ message: `${located.export.ref} is a ${located.export.kind}, not a workflow`, hint: "workflows are markdown files with `type: workflow`; find them with `akm search --type workflow`" })
    }
    const binding: Binding | undefined = byAlias ?? (yield* store.forExport(located.export.ref))[0]
    if (binding === undefined && located.source !== "filesystem") {
      return yield* new ExportNotBound({
        ref: located.export.ref,
        message: `${located.export.ref} comes from a ${located.source} bundle and is not bound, so akm does not run it`,
        hint: `review it (\`akm show ${located.export.ref}\`), then approve it with \`akm bind ${located.export.ref} --as <alias>\``
      })
    }
    if (binding !== undefined) yield* checkBinding(binding, located)
    return { located, binding }
  })

/** The frozen plan as stored: canonical JSON and its sha256. */
const freeze = (frozen: FrozenRun) => {
  const text = JSON.stringify(frozen)
  return { text, hash: sha256Hex(text) }
}

/** Reads a run's frozen plan back, refusing one whose bytes or plan no longer match their hashes (R-RT-5). */
export const thaw = (run: RunRecord): Effect.Effect<FrozenRun, WorkflowPlanTampered> => {
  const tampered = (why: string) =>
    new WorkflowPlanTampered({
      runId: run.id,
      message: `the frozen plan of run ${run.id} was changed after the run started (${why}); nothing was run`,
      hint: `akm never runs an altered plan: abandon it with \`akm workflow abandon ${run.id}\` and start a new run`
    })
  if (sha256Hex(run.frozen) !== run.frozenHash) return Effect.fail(tampered("its hash does not match"))
  let frozen: FrozenRun
  try {
    frozen = JSON.parse(run.frozen) as FrozenRun
  } catch {
    return Effect.fail(tampered("it is not valid JSON"))
  }
  if (frozen.format !== 1 || planHash(frozen.plan) !== frozen.planHash) return Effect.fail(tampered("the plan does not match its hash"))
  return Effect.succeed(frozen)
}

const lastLine = (text: string): string => {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "")
  return (lines[lines.length - 1] ?? "").slice(0, 200)
}

const durationOption = (value: string | undefined, flag: string) =>
  value === undefined
    ? Effect.succeed(undefined)
    : Option.match(Option.fromNullable(parseDuration(value)), {
      onNone: () => Effect.fail(new UsageError({ message: `${flag} '${value.slice(0, 40)}' is not a duration`, hint: "e.g. 90s, 10m or 1h30m" })),
      onSome: (ms) => Effect.succeed(ms)
    })

/**
 * Drives a run from its first unfinished step (spec 07 §2, R-RT-5): every
 * attempt is recorded as running before the program starts and settled when
 * it ends, so a run killed at any point re-runs exactly the step it was in.
 * Gates wait unless their check passes or `confirm` is given; prompt steps
 * go to `runtime.agentCommand`, or wait for the calling agent.
 */
const drive = (run: RunRecord, frozen: FrozenRun, options: RunOptions & { readonly confirm: boolean }) =>
  Effect.gen(function* () {
    const runs = yield* WorkflowRuns
    const logs = yield* LogStore
    const redactor = yield* Redactor
    const progress = yield* Progress
    const processes = yield* StepProcess
    const config = yield* (yield* WorkspaceConfig).read
    const agentCommand = config.runtime?.agentCommand
    const maxSteps = options.maxSteps ?? frozen.plan.maxSteps
    const timeoutMs = (yield* durationOption(options.timeout, "--timeout")) ?? frozen.plan.timeoutMs
    const logKey = `workflow/${run.id}`
    const log = (level: "info" | "warn" | "error", message: string) => Effect.flatMap(redactor.redactCapped(message, MAX_STEP_OUTPUT + 1024), (text) => logs.append(logKey, level, text))
    const summary = (text: string) => Effect.map(redactor.redactCapped(text, 240), String)
    const params = frozen.params
    // Values of the binding's env references, resolved once per process and given to each step's child only.
    const inject: Record<string, string> = {}
    for (const [key, reference] of Object.entries(frozen.env)) inject[key] = Redacted.value(yield* (yield* Credentials).resolve(reference))

    const argvOf = (step: PlanStep, argv: ReadonlyArray<string>): ReadonlyArray<string> =>
      step.shell === true ? ["sh", "-c", substitute(argv[0]!, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, shellQuote(v)])))] : argv.map((word) => substitute(word, params))
    const cwdOf = (step: PlanStep) => path.resolve(frozen.workdir, step.cwd === undefined ? "." : substitute(step.cwd, params))

    let confirm = options.confirm
    let current: number | undefined
    let executed = 0

    /** One attempt of a program, recorded before it starts and logged when it ends. */
    const attempt = (index: number, step: PlanStep, what: string, argv: ReadonlyArray<string>, stdin: string | undefined, limit: number | undefined, phase: "action" | "check" = "action") =>
      Effect.gen(function* () {
        // A gate's check leaves the step as it is (its action is done): cut off, resume checks again.
        if (phase === "action") {
          yield* runs.updateStep(run.id, index, { status: "running", addAttempt: true, startedAt: yield* now, finishedAt: undefined }, yield* now)
          current = index
        }
        yield* progress.update(`workflow ${step.id}: ${what}`, index, frozen.plan.steps.length)
        const onSpawn = (pid: number) => Effect.flatMap(now, (at) => runs.updateStep(run.id, index, { pid }, at)).pipe(Effect.ignore)
        const result = yield* processes.run(argv, { cwd: cwdOf(step), inject, stdin, timeoutMs: limit, maxCapture: MAX_STEP_OUTPUT, onSpawn }).pipe(
          Effect.catchTag("ChildNotStarted", (e) =>
            Effect.gen(function* () {
              yield* log("error", `${step.id}: ${e.message}`)
              const message = `step '${step.id}': ${e.message}`
              const at = yield* now
              yield* runs.updateStep(run.id, index, { status: "failed", exitCode: 127, summary: yield* summary(e.message), finishedAt: at, pid: undefined }, at)
              yield* runs.setStatus(run.id, "failed", `${message}; install the program or fix PATH and \`akm workflow resume ${run.id}\`, or fix the workflow and start a new run`, at)
              current = undefined
              return yield* Effect.fail(new ChildNotStarted(e.program, `${message}; the run ${run.id} stopped there`, e.hint))
            }))
        )
        yield* runs.updateStep(run.id, index, { pid: undefined }, yield* now)
        yield* log(result.exit === 0 ? "info" : "warn", `${step.id} (${what}) exited ${result.exit}${result.timedOut ? " after its time limit" : ""}, ${result.bytes} bytes of output\n${result.output}`)
        return result
      })

    const stepFailed = (index: number, step: PlanStep, exit: number, text: string) =>
      Effect.gen(function* () {
        const at = yield* now
        yield* runs.updateStep(run.id, index, { status: "failed", exitCode: exit, summary: yield* summary(text), finishedAt: at }, at)
        const message = `step '${step.id}' failed (exit ${exit}); fix the cause, then \`akm workflow resume ${run.id}\` runs it again`
        yield* runs.setStatus(run.id, "failed", message, at)
        return { status: "failed" as const, message }
      })

    const wait = (index: number, step: PlanStep, kind: "gate" | "prompt", text: string, stepSummary: string, message: string) =>
      Effect.gen(function* () {
        const at = yield* now
        yield* runs.updateStep(run.id, index, { status: "waiting", summary: yield* summary(stepSummary) }, at)
        yield* runs.setStatus(run.id, "waiting", message, at)
        return { status: "waiting" as const, message, waiting: { step: step.id, kind, text } }
      })

    const loop = Effect.gen(function* () {
      const states = (yield* runs.get(run.id))?.steps ?? run.steps
      for (const [index, step] of frozen.plan.steps.entries()) {
        const state = states[index]
        if (state?.status === "done") continue
        // akm was killed but the step's program was not: never start a second copy beside it.
        if (state?.status === "running" && state.pid !== undefined && (yield* processes.isRunning(state.pid))) {
          return yield* new Conflict({
            message: `step '${step.id}' of run ${run.id} is still running from before (pid ${state.pid}), without the akm that started it; nothing was run`,
            hint: `wait for it to end or stop it (\`kill ${state.pid}\`), then \`akm workflow resume ${run.id}\``
          })
        }
        const actionDone = state?.status === "waiting"
        if (!actionDone && maxSteps !== undefined && executed >= maxSteps) {
          const message = `stopped after ${executed} step${executed === 1 ? "" : "s"} (--max-steps ${maxSteps}); continue with \`akm workflow resume ${run.id}\``
          yield* runs.setStatus(run.id, "paused", message, yield* now)
          return { status: "paused" as const, message }
        }
        if (!actionDone) {
          executed++
          if (step.kind === "command") {
            let result = yield* attempt(index, step, "command", argvOf(step, step.command!), undefined, step.timeoutMs)
            for (let retry = 0; result.exit !== 0 && retry < step.retries; retry++) {
              yield* progress.update(`workflow ${step.id}: exited ${result.exit}, retry ${retry + 1} of ${step.retries}`, index, frozen.plan.steps.length)
              result = yield* attempt(index, step, "command", argvOf(step, step.command!), undefined, step.timeoutMs)
            }
            if (result.exit !== 0) return yield* stepFailed(index, step, result.exit, result.timedOut ? `stopped after its time limit; ${lastLine(result.output)}` : lastLine(result.output))
            yield* runs.updateStep(run.id, index, { exitCode: 0, summary: yield* summary(lastLine(result.output)), ...(step.gate === "none" ? {} : { status: "waiting" as const }) }, yield* now)
            current = undefined
          } else if (step.kind === "prompt") {
            const prompt = substitute(step.prompt ?? step.id, params)
            if (options.interactiveAgent || agentCommand === undefined) {
              if (!options.interactiveAgent) {
                const message = `step '${step.id}' is a prompt and no agent command is configured: set runtime.agentCommand in config.yaml, or run \`akm workflow resume ${run.id} --interactive-agent\` and do the step yourself`
                yield* runs.setStatus(run.id, "waiting", message, yield* now)
                yield* runs.updateStep(run.id, index, { summary: "needs an agent" }, yield* now)
                return { status: "waiting" as const, message, waiting: { step: step.id, kind: "prompt" as const, text: prompt } }
              }
              yield* runs.updateStep(run.id, index, { addAttempt: true, startedAt: yield* now }, yield* now)
              return yield* wait(index, step, "prompt", prompt, HANDED_TO_AGENT, `step '${step.id}' is for you (the calling agent): do what it says, then run \`akm workflow resume ${run.id}\``)
            }
            const result = yield* attempt(index, step, `agent ${agentCommand[0]}`, agentCommand, prompt, step.timeoutMs)
            if (result.exit !== 0) return yield* stepFailed(index, step, result.exit, lastLine(result.output))
            yield* runs.updateStep(run.id, index, { exitCode: 0, summary: yield* summary(lastLine(result.output)), ...(step.gate === "none" ? {} : { status: "waiting" as const }) }, yield* now)
            current = undefined
          }
        }
        // The gate, after the step's action; what passed it becomes the step's summary.
        let passed: string | undefined = actionDone && state?.summary === HANDED_TO_AGENT ? "done by the calling agent" : undefined
        if (step.gate === "check" && !confirm) {
          const check = yield* attempt(index, step, "gate check", argvOf({ ...step, shell: false }, step.check!), undefined, step.timeoutMs ?? CHECK_TIMEOUT_MS, "check")
          if (check.exit !== 0) {
            return yield* wait(index, step, "gate", step.gateText ?? `\`${step.check!.join(" ")}\` exits 0`, `gate check exited ${check.exit}`, `the gate of step '${step.id}' did not pass (its check exited ${check.exit}); make it pass and \`akm workflow resume ${run.id}\`, or confirm it with \`akm workflow resume ${run.id} --confirm\``)
          }
          passed = "gate check passed"
        } else if (step.gate === "confirm" && !confirm) {
          return yield* wait(index, step, "gate", step.gateText ?? step.title ?? step.id, "waiting for confirmation", `step '${step.id}' waits at its gate: when it holds, run \`akm workflow resume ${run.id} --confirm\``)
        } else if (step.gate !== "none") {
          confirm = false
          passed = "gate confirmed by the operator"
        }
        const at = yield* now
        yield* runs.updateStep(run.id, index, { status: "done", finishedAt: at, ...(passed === undefined ? {} : { summary: passed }) }, at)
        yield* progress.done(`workflow ${step.id}`, `✓ ${step.id}`)
        current = undefined
      }
      yield* runs.setStatus(run.id, "done", undefined, yield* now)
      return { status: "done" as const, message: undefined }
    })

    // SIGINT/SIGTERM or the time limit: the step in flight goes back to pending, the run stays resumable.
    const stopped = (message: string) =>
      Effect.gen(function* () {
        const at = yield* now
        if (current !== undefined) yield* runs.updateStep(run.id, current, { status: "pending", summary: "interrupted" }, at)
        yield* runs.setStatus(run.id, "paused", message, at)
      }).pipe(Effect.orElseSucceed(() => undefined))
    const guarded = loop.pipe(Effect.onInterrupt(() => stopped(`interrupted; continue with \`akm workflow resume ${run.id}\``)))
    if (timeoutMs === undefined) return yield* guarded
    const outcome = yield* Effect.timeoutOption(guarded, timeoutMs)
    if (Option.isSome(outcome)) return outcome.value
    const message = `stopped at the time limit (--timeout); continue with \`akm workflow resume ${run.id}\``
    yield* stopped(message)
    return { status: "paused" as const, message }
  })

const report = (id: string, outcome: { readonly status: RunRecord["status"]; readonly message?: string | undefined; readonly waiting?: RunReport["waiting"] }) =>
  Effect.gen(function* () {
    const run = yield* (yield* WorkflowRuns).get(id)
    const result: RunReport = { id, workflow: run?.workflow ?? "", status: outcome.status, message: outcome.message, steps: run?.steps ?? [], ...(outcome.waiting === undefined ? {} : { waiting: outcome.waiting }) }
    return result
  })

/** `akm workflow run <ref|alias>`: freezes the plan (R-RT-4), records the run, drives it. */
export const workflowRun = Effect.fn("runtime.workflowRun")(function* (input: RunInput) {
  const given = parsePairs("--param", input.params)
  if (typeof given === "string") return yield* new UsageError({ message: given, hint: "e.g. --param dir=./out" })
  if (input.maxSteps !== undefined && (!Number.isInteger(input.maxSteps) || input.maxSteps < 1)) {
    return yield* new UsageError({ message: `--max-steps ${input.maxSteps} is not a positive whole number`, hint: "e.g. --max-steps 5" })
  }
  yield* durationOption(input.timeout, "--timeout")
  const { located, binding } = yield* locateWorkflow(input.target)
  const plan = located.export.plan
  if (plan === undefined) {
    return yield* new WorkflowInvalid({
      ref: located.export.ref,
      message: `${located.export.ref} (${located.root}/${located.file}) is not a runnable workflow: it has lint errors; nothing was run`,
      hint: `see them with \`akm lint ${located.bundle}\`, fix the file, then run it again`
    })
  }
  const params = yield* resolveParams(located.export.ref, plan, given, binding?.params ?? {})
  const { adapter } = yield* resolveBundle(located.bundle)
  const lock = yield* (yield* WorkspaceConfig).readLock
  const frozen: FrozenRun = {
    format: 1,
    workflow: located.export.ref,
    ...(binding === undefined ? {} : { alias: binding.alias }),
    bundle: located.bundle,
    bundleRevision: lock.bundles[located.bundle]?.revision ?? null,
    adapter: { id: adapter.id, version: adapter.version },
    digest: located.export.digest,
    plan,
    planHash: planHash(plan),
    params,
    env: binding?.env ?? {},
    workdir: input.workdir
  }
  // A reference that does not resolve stops the run before anything is recorded.
  for (const reference of Object.values(frozen.env)) yield* (yield* Credentials).resolve(reference)
  const { text, hash } = freeze(frozen)
  const id = yield* newRunId
  const at = yield* now
  const runs = yield* WorkflowRuns
  const record: Omit<RunRecord, "steps"> = { id, workflow: located.export.ref, status: "running", frozen: text, frozenHash: hash, createdAt: at, updatedAt: at }
  yield* runs.create(record, plan.steps.map((s) => s.id))
  yield* recordEvent("workflow.started", located.export.ref, { run: id, digest: located.export.digest, planHash: frozen.planHash, params: Object.keys(params), env: Object.keys(frozen.env) })
  const run = (yield* runs.get(id))!
  const outcome = yield* runs.exclusive(id, drive(run, frozen, { ...input, confirm: false }))
  yield* recordEvent(`workflow.${outcome.status}`, located.export.ref, { run: id })
  return yield* report(id, outcome)
})

const noRun = (id: string) => new NotFound({ what: "workflow run", name: id, message: `no workflow run '${id}'`, hint: "list runs with `akm workflow list`" })

/** `akm workflow resume <run-id>`: goes on from the first unfinished step of the frozen plan; a finished run is left as it is (R-RT-5). */
export const workflowResume = Effect.fn("runtime.workflowResume")(function* (id: string, options: RunOptions & { readonly confirm: boolean }) {
  const runs = yield* WorkflowRuns
  const run = yield* runs.get(id)
  if (run === undefined) return yield* noRun(id)
  const frozen = yield* thaw(run)
  if (run.status === "done") {
    const result: RunReport = { id, workflow: run.workflow, status: "done", message: "the run had already finished; nothing ran", steps: run.steps, unchanged: true }
    return result
  }
  if (run.status === "abandoned") {
    return yield* new Conflict({ message: `run ${id} was abandoned; it does not resume`, hint: `start a new run with \`akm workflow run ${frozen.alias ?? frozen.workflow}\`` })
  }
  const outcome = yield* runs.exclusive(id, Effect.gen(function* () {
    yield* runs.setStatus(id, "running", undefined, yield* now)
    return yield* drive(run, frozen, options)
  }))
  yield* recordEvent(`workflow.${outcome.status}`, run.workflow, { run: id, resumed: true })
  return yield* report(id, outcome)
})
