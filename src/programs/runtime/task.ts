import { Clock, Duration, Effect, Either, Exit, Option, Redacted } from "effect"
import * as path from "node:path"
import { describeFireTimes, nextFireTimes, scheduleProblem } from "../../domain/CronSchedule.js"
import { blockAliases, blockId, entryCommand, withEntries, type CrontabEntry } from "../../domain/CrontabBlock.js"
import { Conflict, UsageError } from "../../domain/Errors.js"
import { ALIAS, defaultAlias, type Binding } from "../../domain/RuntimeExport.js"
import { readTask } from "../../domain/TaskDefinition.js"
import { ExportNotBound } from "../../domain/RuntimeErrors.js"
import { Bindings } from "../../services/Bindings.js"
import { ChildProcess } from "../../services/ChildProcess.js"
import { Credentials } from "../../services/Credentials.js"
import { Crontab } from "../../services/Crontab.js"
import { IndexStore } from "../../services/IndexStore.js"
import { Progress } from "../../services/Progress.js"
import { Redactor } from "../../services/Redactor.js"
import { TaskStore, type TaskRecord, type TaskRunStatus } from "../../services/TaskStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { createItem } from "../create.js"
import { ensureIndexed } from "../ensureIndexed.js"
import { recordEvent } from "../events.js"
import { writeTarget } from "../proposals/direct.js"
import { exportOf, type LocatedExport } from "./exportOf.js"
import { checkWorkflow, commandArgv, parseTask, qualifyWorkflow, type ParsedTask } from "./taskTarget.js"

/** How akm itself is started: the absolute node and akm paths the scheduler entry and `akm …` commands use. */
export type AkmInvocation = ReadonlyArray<string>

const MAX_ITEMS = 10_000
const EDIT_ATTEMPTS = 5

const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
const fireTimes = (schedule: string, now: number) => describeFireTimes(nextFireTimes(schedule, new Date(now)))

const SCHEDULE_HINT = "five fields, minute hour day-of-month month day-of-week (e.g. \"0 3 * * *\"), or @hourly, @daily, @weekly, @monthly, @yearly, @reboot"

// ---------------------------------------------------------------------------
// Resolving `<ref|alias>`

interface ResolvedTask {
  /** The export as it is now; Left when its file or bundle is gone (a bound task still runs its approved definition). */
  readonly located: Either.Either<LocatedExport, unknown>
  readonly binding: Binding | undefined
  readonly record: TaskRecord | undefined
}

const notATask = (ref: string, kind: string) =>
  new UsageError({ message: `${ref} is a ${kind}, not a task`, hint: "list tasks with `akm task list`" })

/** A ref, or a bare name as `task add` takes it: `nightly` is `tasks/nightly` in an akm bundle. */
const byName = (target: string) =>
  target.includes("/") ? exportOf(target) : exportOf(target).pipe(Effect.catchTags({ NotFound: () => exportOf(`tasks/${target}`), RefNotFound: () => exportOf(`tasks/${target}`) }))

/** An alias (of a task's binding or task record) or a ref → the task's export, binding and local record. */
const resolveTask = Effect.fn("task.resolve")(function* (target: string) {
  const bindings = yield* Bindings
  const tasks = yield* TaskStore
  const plain = !target.includes("/")
  const record = plain ? yield* tasks.get(target) : undefined
  const byAlias = plain ? yield* bindings.get(record?.alias ?? target) : undefined
  if (byAlias !== undefined && byAlias.kind !== "task") return yield* notATask(target, byAlias.kind)
  const ref = byAlias?.exportRef ?? record?.exportRef
  const located = ref === undefined ? Either.right(yield* byName(target)) : yield* Effect.either(exportOf(ref))
  if (Either.isRight(located) && located.right.export.kind !== "task") return yield* notATask(located.right.export.ref, located.right.export.kind)
  if (Either.isLeft(located) && byAlias === undefined && record === undefined) return yield* Effect.fail(located.left)
  const exportRef = Either.isRight(located) ? located.right.export.ref : ref!
  const binding = byAlias ?? (yield* bindings.forExport(exportRef)).find((b) => b.kind === "task")
  const ownRecord = record ?? (binding === undefined ? undefined : yield* tasks.get(binding.alias))
  return { located, binding, record: ownRecord } satisfies ResolvedTask
})

const fileOf = (located: LocatedExport): string => path.join(located.root, located.file)

// ---------------------------------------------------------------------------
// The scheduler table

const entriesFor = (records: ReadonlyArray<TaskRecord>, akm: AkmInvocation) =>
  Effect.gen(function* () {
    const paths = (yield* WorkspaceConfig).paths
    const entries: Array<CrontabEntry> = []
    for (const r of [...records].sort((a, b) => a.alias.localeCompare(b.alias))) {
      const command = entryCommand(paths, akm, r.alias)
      if (Either.isLeft(command)) return yield* new UsageError({ message: `cannot write a scheduler entry: ${command.left}`, hint: "use AKM_CONFIG_DIR, AKM_DATA_DIR and AKM_CACHE_DIR paths without line breaks" })
      entries.push({ alias: r.alias, ref: r.exportRef, digest: r.digest, schedule: r.schedule, command: command.right })
    }
    return entries
  })

/**
 * Rewrites akm's block to hold exactly `entries`: read, edit, compare-and-swap;
 * a table changed by another writer in between is read again and edited
 * again, never overwritten. Nothing is written when nothing changes.
 */
export const writeEntries = (entries: ReadonlyArray<CrontabEntry>, dataDir: string) =>
  Effect.gen(function* () {
    const crontab = yield* Crontab
    const id = blockId(dataDir)
    const where = yield* crontab.where
    for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
      const text = yield* crontab.read
      const next = withEntries(text, id, entries)
      if (Either.isLeft(next)) {
        return yield* new Conflict({
          message: `${where}, line ${next.left.line}: akm's block is damaged (${next.left.message}); nothing was written`,
          hint: `remove the lines from '# BEGIN akm tasks ${id}' to '# END akm tasks ${id}' by hand (\`crontab -e\`, or edit the file), then run \`akm task enable\` again for each task`
        })
      }
      if (next.right === text) return { where, written: false }
      const swapped = yield* crontab.replace(text, next.right).pipe(Effect.as(true), Effect.catchTag("CrontabChanged", () => Effect.succeed(false)))
      if (swapped) return { where, written: true }
    }
    return yield* new Conflict({ message: `${where} kept changing while akm edited it; nothing was written`, hint: "try again when no other program is editing the crontab" })
  })

// ---------------------------------------------------------------------------
// akm task add

export interface TaskAddInput {
  readonly name: string
  readonly schedule: string
  readonly command?: string | undefined
  readonly workflow?: string | undefined
  readonly prompt?: string | undefined
  readonly description?: string | undefined
  readonly bundle?: string | undefined
  readonly cwd: string
  readonly home: string
}

const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

/** `akm task add`: a tasks/<name>.yml written as a proposal (accepted at once when policy allows); it schedules nothing. */
export const taskAdd = Effect.fn("task.add")(function* (input: TaskAddInput) {
  const targets = (["command", "workflow", "prompt"] as const).filter((kind) => input[kind] !== undefined)
  if (targets.length !== 1) {
    return yield* new UsageError({
      message: targets.length === 0 ? "a task needs something to run" : `--${targets.join(" and --")} contradict each other`,
      hint: "give exactly one of --command \"…\", --workflow <ref> or --prompt \"…\""
    })
  }
  const kind = targets[0]!
  const value = input[kind]!.trim()
  if (value === "") return yield* new UsageError({ message: `--${kind} is empty`, hint: "give what the task runs" })
  if (!TASK_NAME.test(input.name)) return yield* new UsageError({ message: `'${input.name.slice(0, 64)}' is not a task name`, hint: "use letters, digits, '-', '_' and '.', starting with a letter or digit, e.g. nightly-improve" })
  const problem = scheduleProblem(input.schedule)
  if (problem !== undefined) return yield* new UsageError({ message: `--schedule '${input.schedule.slice(0, 80)}': ${problem}`, hint: SCHEDULE_HINT })
  const bundle = yield* writeTarget(input.bundle)
  if (kind === "workflow") yield* checkWorkflow(value, bundle)
  const created = yield* createItem({
    type: "task",
    bundle,
    title: input.name,
    description: input.description,
    fields: [`schedule=${input.schedule.trim()}`, `${kind}=${value}`],
    cwd: input.cwd,
    home: input.home
  })
  const now = yield* Clock.currentTimeMillis
  return { ...created, schedule: input.schedule.trim(), next: fireTimes(input.schedule, now) }
})

// ---------------------------------------------------------------------------
// akm task enable / disable

export interface TaskEnableInput {
  readonly target: string
  readonly update: boolean
  readonly alias?: string | undefined
  readonly akm: AkmInvocation
}

/**
 * `akm task enable`: binds the task at its current digest (or keeps the
 * approved one) and writes its entry into akm's block of the scheduler
 * table. Enabling an enabled task changes nothing. A bundle update never
 * rewrites an active entry (R-RT-6): the approved definition stays until
 * `--update` approves the new one.
 */
export const taskEnable = Effect.fn("task.enable")(function* (input: TaskEnableInput) {
  if (input.alias !== undefined && !ALIAS.test(input.alias)) {
    return yield* new UsageError({ message: `--as '${input.alias.slice(0, 64)}' is not a valid alias`, hint: "use letters, digits, '-', '_' and '.', starting with a letter or digit (at most 64)" })
  }
  const resolved = yield* resolveTask(input.target)
  if (Either.isLeft(resolved.located)) return yield* Effect.fail(resolved.located.left)
  const located = resolved.located.right
  const existing = resolved.binding
  if (existing !== undefined && input.alias !== undefined && input.alias !== existing.alias) {
    return yield* new Conflict({ message: `${located.export.ref} is already bound as '${existing.alias}'`, hint: `enable it by that alias: \`akm task enable ${existing.alias}\`` })
  }
  const approving = existing === undefined || (input.update && existing.digest !== located.export.digest)
  const definition = approving ? located.export.definition : existing.definition
  const parsed = yield* parseTask(definition, approving ? fileOf(located) : `${located.export.ref} (as approved)`)
  if (parsed.kind === "workflow") yield* checkWorkflow(String(parsed.value), located.bundle)
  const now = yield* nowIso
  const bindings = yield* Bindings
  let binding: Binding
  if (approving) {
    // The approved definition is what scheduled runs execute, so it is stored whole; one the redactor would change holds a secret.
    if ((yield* (yield* Redactor).redact(definition)) !== definition) {
      return yield* new Conflict({
        message: `${fileOf(located)} holds what looks like a secret value; nothing was enabled`,
        hint: "take the value out of the task: list its key name under env: and map it with `akm bind --env KEY=secret:<ref>`"
      })
    }
    if (existing === undefined) {
      binding = { alias: input.alias ?? defaultAlias(located.export.ref), exportRef: located.export.ref, kind: "task", digest: located.export.digest, definition, params: {}, env: {}, source: located.source, approvedAt: now }
      if (!(yield* bindings.add(binding))) {
        return yield* new Conflict({ message: `the alias '${binding.alias}' is already bound to another export`, hint: "choose another with --as <alias>" })
      }
      yield* recordEvent("binding.created", binding.exportRef, { alias: binding.alias, kind: "task", digest: binding.digest, env: [], params: [] })
    } else {
      yield* bindings.approve(existing.alias, { digest: located.export.digest, definition, approvedAt: now })
      binding = { ...existing, digest: located.export.digest, definition, approvedAt: now }
      yield* recordEvent("binding.approved", existing.exportRef, { alias: existing.alias, from: existing.digest, to: located.export.digest })
    }
  } else {
    binding = existing
  }
  const tasks = yield* TaskStore
  const record: TaskRecord = { alias: binding.alias, exportRef: binding.exportRef, digest: binding.digest, schedule: parsed.schedule, enabled: true, updatedAt: now }
  const before = resolved.record
  const others = (yield* tasks.list).filter((r) => r.enabled && r.alias !== record.alias)
  const { where, written } = yield* writeEntries(yield* entriesFor([...others, record], input.akm), (yield* WorkspaceConfig).paths.dataDir)
  const unchanged = before?.enabled === true && before.digest === record.digest && before.schedule === record.schedule
  if (!unchanged || written) {
    yield* tasks.put(record)
    yield* recordEvent("task.enabled", record.exportRef, { alias: record.alias, digest: record.digest, schedule: record.schedule })
  }
  const nowMs = yield* Clock.currentTimeMillis
  return {
    alias: record.alias,
    ref: record.exportRef,
    digest: record.digest,
    schedule: record.schedule,
    target: parsed.kind,
    where,
    changed: !unchanged || written,
    pendingReview: located.export.digest !== binding.digest,
    next: fireTimes(record.schedule, nowMs)
  }
})

/** `akm task disable`: removes the task's entry (the last one takes the whole block with it); the binding and history stay. */
export const taskDisable = Effect.fn("task.disable")(function* (target: string, akm: AkmInvocation) {
  const resolved = yield* resolveTask(target)
  const record = resolved.record
  const ref = record?.exportRef ?? resolved.binding?.exportRef ?? (Either.isRight(resolved.located) ? resolved.located.right.export.ref : target)
  const tasks = yield* TaskStore
  const others = (yield* tasks.list).filter((r) => r.enabled && r.alias !== record?.alias)
  const { where, written } = yield* writeEntries(yield* entriesFor(others, akm), (yield* WorkspaceConfig).paths.dataDir)
  const wasEnabled = record?.enabled === true
  if (record !== undefined && wasEnabled) {
    yield* tasks.put({ ...record, enabled: false, updatedAt: yield* nowIso })
    yield* recordEvent("task.disabled", record.exportRef, { alias: record.alias })
  }
  return { alias: record?.alias ?? resolved.binding?.alias ?? target, ref, where, changed: wasEnabled || written }
})

// ---------------------------------------------------------------------------
// akm task run

export interface TaskRunInput {
  readonly target: string
  /** The scheduler's call (the entry passes --scheduled): a task disabled since is skipped. */
  readonly scheduled: boolean
  readonly akm: AkmInvocation
  readonly cwd: string
}

const targetArgv = (parsed: ParsedTask, bundle: string | undefined, akm: AkmInvocation) =>
  Effect.gen(function* () {
    switch (parsed.kind) {
      case "command":
        return { argv: commandArgv(parsed.value, akm) }
      case "workflow": {
        // The workflow runs through akm itself, as a child: its own run record, freezing and resume apply.
        const ref = bundle === undefined ? String(parsed.value) : qualifyWorkflow(String(parsed.value), bundle)
        return { argv: [...akm, "workflow", "run", ref, ...Object.entries(parsed.params).flatMap(([k, v]) => ["--param", `${k}=${v}`])] }
      }
      case "prompt": {
        const agent = (yield* (yield* WorkspaceConfig).read).runtime?.agentCommand
        if (agent === undefined) {
          return yield* new UsageError({ message: "a prompt task needs an agent command to hand the prompt to; nothing was run", hint: "set runtime.agentCommand in config.yaml, e.g. runtime: { agentCommand: [claude, -p] } (the prompt goes to its stdin)" })
        }
        return { argv: agent, stdin: String(parsed.value) }
      }
    }
  })

/**
 * `akm task run`: runs the task once now and records the run (exit status,
 * duration) in state.db. A bound task runs its approved definition, even
 * when the file changed since (R-RT-6: the change waits for review); an
 * unbound one runs only from the operator's own filesystem bundles.
 */
export const taskRun = Effect.fn("task.run")(function* (input: TaskRunInput) {
  const resolved = yield* resolveTask(input.target)
  const located = Either.getRight(resolved.located)
  const binding = resolved.binding
  if (input.scheduled && resolved.record?.enabled !== true) {
    yield* (yield* Progress).warn(`${input.target} is not enabled; the scheduled run was skipped (remove the stale entry with \`akm task disable ${input.target}\`)`)
    return { alias: input.target, ref: resolved.record?.exportRef ?? input.target, skipped: true as const, exit: 0 }
  }
  let definition: string
  if (binding !== undefined) {
    definition = binding.definition
    if (Option.isSome(located) && located.value.export.digest !== binding.digest) {
      yield* (yield* Progress).warn(`${binding.exportRef} changed since it was approved: running the approved definition (update pending review: \`akm task enable ${binding.alias} --update\`)`)
    }
  } else {
    const current = Option.getOrThrow(located)
    if (current.source !== "filesystem") {
      return yield* new ExportNotBound({
        ref: current.export.ref,
        message: `${current.export.ref} comes from a ${current.source} bundle and is not bound, so akm does not run it`,
        hint: `review it (\`akm show ${current.export.ref}\`), then approve it with \`akm task enable ${current.export.ref}\` or \`akm bind ${current.export.ref}\``
      })
    }
    definition = current.export.definition
  }
  const ref = binding?.exportRef ?? Option.getOrThrow(located).export.ref
  const alias = binding?.alias ?? resolved.record?.alias ?? defaultAlias(ref)
  const parsed = yield* parseTask(definition, Option.match(located, { onNone: () => ref, onSome: fileOf }))
  const bundle = Option.getOrUndefined(Option.map(located, (l) => l.bundle)) ?? ref.slice(0, ref.indexOf("//"))
  if (parsed.kind === "workflow") yield* checkWorkflow(String(parsed.value), bundle)
  const { argv, stdin } = yield* targetArgv(parsed, bundle, input.akm)
  // Env references the operator bound (never values in the task): resolved now, for the child only.
  const credentials = yield* Credentials
  // The child's `akm …` uses this workspace even when it was chosen with --data-dir and friends.
  const paths = (yield* WorkspaceConfig).paths
  const inject: Record<string, string> = { AKM_CONFIG_DIR: paths.configDir, AKM_DATA_DIR: paths.dataDir, AKM_CACHE_DIR: paths.cacheDir }
  for (const [key, reference] of Object.entries(binding?.env ?? {})) inject[key] = Redacted.value(yield* credentials.resolve(reference))
  const tasks = yield* TaskStore
  const started = yield* Clock.currentTimeMillis
  const digest = binding?.digest ?? Option.getOrThrow(located).export.digest
  const id = yield* tasks.startRun({ alias, exportRef: ref, digest, trigger: input.scheduled ? "scheduled" : "manual", target: parsed.kind, startedAt: new Date(started).toISOString() })
  yield* recordEvent("task.run", ref, { alias, trigger: input.scheduled ? "scheduled" : "manual", target: parsed.kind })
  const finish = (exit: number, status: TaskRunStatus) =>
    Effect.flatMap(Clock.currentTimeMillis, (end) => tasks.finishRun(id, { finishedAt: new Date(end).toISOString(), durationMs: end - started, exit, status }))
  const cwd = Option.match(located, { onNone: () => input.cwd, onSome: (l) => l.root })
  const child = (yield* ChildProcess).run(argv, inject, cwd, stdin === undefined ? undefined : { stdin })
  const outcome = yield* (parsed.timeoutMs === undefined ? Effect.map(child, Option.some) : Effect.timeoutOption(child, Duration.millis(parsed.timeoutMs))).pipe(
    Effect.onExit((exit) =>
      // The history row must not stay "running" when akm is stopped or the command never started.
      Effect.ignore(Exit.isInterrupted(exit) ? finish(130, "failed") : Exit.isFailure(exit) ? finish(127, "not-started") : Effect.void)
    )
  )
  const exit = Option.getOrElse(outcome, () => 124)
  const status: TaskRunStatus = Option.isNone(outcome) ? "timeout" : exit === 0 ? "ok" : "failed"
  yield* finish(exit, status)
  const end = yield* Clock.currentTimeMillis
  return { alias, ref, skipped: false as const, exit, status, durationMs: end - started, run: id }
})

// ---------------------------------------------------------------------------
// akm task list / history

export type TaskStatus = "enabled" | "update pending review" | "disabled" | "not enabled" | "missing"

/** `akm task list`: every indexed task and every task akm scheduled, with its state, next fire times and last run. */
export const taskList = Effect.fn("task.list")(function* () {
  yield* ensureIndexed
  const { items } = yield* (yield* IndexStore).browse({ prefix: "", filters: { types: ["task"], belief: "all", includeProposed: true }, limit: MAX_ITEMS })
  const tasks = yield* TaskStore
  const bindings = yield* Bindings
  const records = yield* tasks.list
  const nowMs = yield* Clock.currentTimeMillis
  const inBlock = records.some((r) => r.enabled)
    ? yield* Effect.either(Effect.flatMap(Crontab, (c) => c.read)).pipe(
      Effect.flatMap((text) => Effect.map(WorkspaceConfig, (w) => (Either.isRight(text) ? Either.getOrUndefined(blockAliases(text.right, blockId(w.paths.dataDir))) : undefined)))
    )
    : undefined
  const seen = new Set<string>()
  const rows = []
  const row = (ref: string, schedule: string | undefined, currentDigest: string | undefined, binding: Binding | undefined, record: TaskRecord | undefined) =>
    Effect.gen(function* () {
      const last = record === undefined && binding === undefined ? undefined : (yield* tasks.history(record?.alias ?? binding!.alias, 1))[0]
      const pinned = binding?.digest ?? record?.digest
      const status: TaskStatus = currentDigest === undefined
        ? "missing"
        : record?.enabled === true
          ? pinned !== currentDigest ? "update pending review" : "enabled"
          : record === undefined ? "not enabled" : "disabled"
      const sched = record?.enabled === true ? record.schedule : schedule
      return {
        ref,
        alias: record?.alias ?? binding?.alias,
        schedule: sched,
        status,
        ...(record?.enabled === true && inBlock !== undefined && !inBlock.includes(record.alias) ? { scheduler: "entry missing: run `akm task enable` again" } : {}),
        next: record?.enabled === true && sched !== undefined ? fireTimes(sched, nowMs) : [],
        ...(last === undefined ? {} : { lastRun: { at: last.startedAt, status: last.status, exit: last.exit, durationMs: last.durationMs } })
      }
    })
  for (const item of items) {
    const located = yield* Effect.either(exportOf(item.ref))
    const ref = Either.isRight(located) ? located.right.export.ref : item.ref
    const binding = (yield* bindings.forExport(ref)).find((b) => b.kind === "task")
    const record = records.find((r) => r.exportRef === ref && (binding === undefined || r.alias === binding.alias))
    seen.add(ref)
    const schedule = Either.isRight(located) ? readTask(located.right.export.definition).schedule : undefined
    rows.push(yield* row(ref, schedule, Either.isRight(located) ? located.right.export.digest : undefined, binding, record))
  }
  for (const record of records.filter((r) => !seen.has(r.exportRef))) {
    rows.push(yield* row(record.exportRef, record.schedule, undefined, yield* bindings.get(record.alias), record))
  }
  return { tasks: rows }
})

/** `akm task history [ref|alias]`: the newest runs first, with trigger, exit status and duration. */
export const taskHistory = Effect.fn("task.history")(function* (target: string | undefined, limit: number) {
  let alias: string | undefined
  if (target !== undefined) {
    const resolved = yield* resolveTask(target)
    alias = resolved.record?.alias ?? resolved.binding?.alias ?? (Either.isRight(resolved.located) ? defaultAlias(resolved.located.right.export.ref) : target)
  }
  return { runs: yield* (yield* TaskStore).history(alias, limit) }
})
