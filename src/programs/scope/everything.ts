import { Effect } from "effect"
import { findConflicts } from "../../domain/project/Conflicts.js"
import { inputReason, STATIONS, type Change, type Station } from "../../domain/scope/Plan.js"
import { Progress } from "../../services/Progress.js"
import { briefWrite, checkBrief } from "../brief/brief.js"
import { indexBundles } from "../indexBundles.js"
import { detectRecurrences, nextRuleNumber } from "../ledger/distil.js"
import { mineGit } from "../ledger/mineGit.js"
import { resolveProjectBundle, type ProjectTarget } from "../ledger/projectBundle.js"
import { loadLedger } from "../ledger/store.js"
import { verifyProject } from "../ledger/verify.js"
import { lint } from "../lint.js"
import { projectFileList } from "../project/files.js"
import { checkMaps, mapsWrite } from "../project/maps.js"
import { checkRouters, routersWrite } from "../project/routers.js"
import { loadRules, type ProjectInput } from "../project/rules.js"
import { scopeState, type ScopePlan } from "./plan.js"
import { questionBatch, type QuestionsResult } from "./questions.js"
import { contentHashes, recordStationRun } from "./stationRuns.js"

/** The pipeline's stations, then the project bundle's index and lint. */
export type Step = Station | "INDEX" | "LINT"

export interface StepOutcome {
  readonly step: Step
  /** ran: it had work (or --all); skipped: none of its inputs changed; checked: --check; failed: it stopped with an error. */
  readonly status: "ran" | "skipped" | "checked" | "failed"
  /** Why it ran or was skipped. */
  readonly reasons: ReadonlyArray<string>
  /** What it did, one line each. */
  readonly did: ReadonlyArray<string>
  /** What fails the check (--check), or the error that stopped it. */
  readonly problems: ReadonlyArray<string>
}

export interface EverythingResult {
  readonly bundle: string
  readonly mode: "scoped" | "all" | "check"
  readonly plan: ScopePlan
  readonly steps: ReadonlyArray<StepOutcome>
  readonly questions: QuestionsResult
  /** --check: nothing fails the gate; otherwise: no step failed. */
  readonly ok: boolean
  readonly durationMs: number
}

export interface EverythingInput extends ProjectInput {
  readonly all?: boolean | undefined
  readonly check?: boolean | undefined
}

interface Done {
  readonly did: ReadonlyArray<string>
  readonly problems: ReadonlyArray<string>
  /** Project-relative files it wrote (later stations whose inputs they are get work). */
  readonly wrote: ReadonlyArray<Change>
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`
const messageOf = (e: unknown): string => {
  const m = (e as { message?: unknown } | null)?.message
  const hint = (e as { hint?: unknown } | null)?.hint
  return `${typeof m === "string" && m !== "" ? m : String((e as { _tag?: unknown } | null)?._tag ?? e)}${typeof hint === "string" && hint !== "" ? ` (${hint})` : ""}`
}
const fileAction = (action: string): Change["status"] | undefined => (action === "created" ? "added" : action === "updated" ? "modified" : undefined)

/** CAPTURE: the ledger verified; with writes, the git history since the last pass mined. */
const capture = (target: ProjectTarget, write: boolean, since: string) =>
  Effect.gen(function* () {
    const verified = yield* verifyProject(target)
    const errors = verified.findings.filter((f) => f.severity === "error")
    const problems = errors.map((f) => `malformed ledger: ${f.path}:${f.line}: ${f.message}`)
    const did = [`ledger: ${plural(verified.records, "record")}, ${plural(errors.length, "error")}`]
    const wrote: Array<Change> = []
    if (write) {
      const mined = yield* Effect.either(mineGit({ bundle: target.name, cwd: target.root, since }))
      if (mined._tag === "Left") did.push(`git history not mined: ${messageOf(mined.left)}`)
      else {
        const added = mined.right.matched.flatMap((m) => m.records.filter((r) => r.added))
        did.push(`mined ${plural(mined.right.commits, "commit")} since ${mined.right.since}: ${plural(added.length, "occurrence")} added, ${plural(mined.right.unmatched.length, "unmatched fix commit")}`)
        for (const r of added) wrote.push({ path: `.ai/ledger/failure/${r.id}.md`, status: "modified" })
      }
    }
    return { did, problems, wrote } satisfies Done
  })

/** DISTIL: recurrences waiting for a decision (they join the question batch; the check fails on them). */
const distilStep = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const items = detectRecurrences(yield* loadLedger(target.root), yield* nextRuleNumber(target))
    return {
      did: [items.length === 0 ? "no recurrence waits for a decision" : `${plural(items.length, "recurrence")} wait for a decision (see the questions)`],
      problems: items.map((i) => `undecided recurrence: failure/${i.id} (seen ${i.occurrences} times): decide with akm distil decide failure/${i.id} --as rule|skill|neither`),
      wrote: []
    } satisfies Done
  })

/** HARDEN: rule conflicts reported, never resolved. */
const harden = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const rules = yield* loadRules(target)
    const { files } = yield* projectFileList(target)
    const conflicts = findConflicts(rules.rules, files)
    return {
      did: [`${plural(rules.rules.length, "rule")}, ${plural(conflicts.length, "conflict")}${rules.problems.length === 0 ? "" : `, ${plural(rules.problems.length, "unreadable rule")}`}`],
      problems: conflicts.map((c) => `rule conflict: ${c.a.rule} (${c.a.path}:${c.a.line}) and ${c.b.rule} (${c.b.path}:${c.b.line}) on ${c.on}${c.files.length === 0 ? "" : ` in ${c.files.slice(0, 3).join(", ")}`}: see akm rules conflicts`),
      wrote: []
    } satisfies Done
  })

/** PROJECT: the router files and the maps, written (mechanical) or drift-checked. */
const project = (target: ProjectTarget, write: boolean) =>
  Effect.gen(function* () {
    if (!write) {
      const routers = yield* checkRouters(target)
      const maps = yield* checkMaps(target)
      return {
        did: [`${plural(routers.checked.length, "router file")} and 2 maps checked`],
        problems: [...routers.drift.map((d) => `drifted router: ${d.path}: ${d.message}`), ...maps.drift.map((d) => `drifted map: ${d.path}: ${d.message}`)],
        wrote: []
      } satisfies Done
    }
    const routers = yield* routersWrite({ bundle: target.name, cwd: target.root })
    const maps = yield* mapsWrite({ bundle: target.name, cwd: target.root })
    const files = [...routers.files, ...maps.files]
    const changed = files.filter((f) => fileAction(f.action) !== undefined)
    const waiting = routers.files.filter((f) => f.action === "needs-adopt")
    return {
      did: [
        changed.length === 0 ? `${plural(files.length, "file")} up to date` : `wrote ${changed.map((f) => f.path).join(", ")}`,
        ...waiting.map((f) => `${f.path} has no akm markers: left alone (akm routers write --adopt takes it over)`)
      ],
      problems: [],
      wrote: changed.map((f) => ({ path: f.path, status: fileAction(f.action)! }))
    } satisfies Done
  })

/** SURFACE: the brief and index.json, written or drift-checked. */
const surface = (target: ProjectTarget, write: boolean) =>
  Effect.gen(function* () {
    if (!write) {
      const checked = yield* checkBrief(target)
      return { did: [`brief checked (${checked.tokens} of ${checked.budget} tokens, ${checked.tier})`], problems: checked.problems.map((p) => `drifted brief: ${p.path}: ${p.message}`), wrote: [] } satisfies Done
    }
    const written = yield* briefWrite({ bundle: target.name, cwd: target.root })
    const changed = written.files.filter((f) => f.action !== "unchanged")
    return {
      did: [`${changed.length === 0 ? "brief unchanged" : `wrote ${changed.map((f) => f.path).join(", ")}`} (${written.tokens} of ${written.budget} tokens, ${written.tier}): ${written.content} items as content, ${written.pointers} as pointers`],
      problems: [],
      wrote: changed.map((f) => ({ path: f.path, status: f.action === "created" ? "added" as const : "modified" as const }))
    } satisfies Done
  })

/**
 * `akm everything [--all] [--check]` (R-SCP-2, R-SCP-3): CAPTURE → DISTIL →
 * HARDEN → PROJECT → SURFACE, then the project bundle's index and lint.
 * Scoped (the default): a station runs only when the scope plan gives it
 * work, or an earlier station wrote one of its inputs; each run is recorded
 * so the next plan counts only what changed since. --all runs every station.
 * --check ignores the plan, runs every check and writes nothing in the
 * repository: the CI gate. Ends with the question batch (R-SCP-1).
 */
export const everything = Effect.fn("everything")(function* (input: EverythingInput = {}) {
  const started = Date.now()
  const progress = yield* Progress
  const target = yield* resolveProjectBundle(input)
  const check = input.check === true
  const mode: EverythingResult["mode"] = check ? "check" : input.all === true ? "all" : "scoped"
  const state = yield* scopeState(target)
  const captureRun = state.runs.get("CAPTURE")
  const since = captureRun === undefined ? "90d" : new Date(captureRun.at).toISOString().slice(0, 10)
  const steps: Array<StepOutcome> = []
  const wrote: Array<Change> = []
  const ran = new Set<Station>()
  for (const station of STATIONS) {
    const planned = state.plan.stations.find((s) => s.station === station)!
    const cascade = wrote.flatMap((c) => {
      const why = inputReason(station, c, state.input)
      return why === undefined ? [] : [`${why} (written by this pass): ${c.path}`]
    })
    const work = mode !== "scoped" || planned.work || cascade.length > 0
    const reasons = mode === "check" ? ["--check runs every check"] : mode === "all" ? ["--all runs every station"] : [...planned.reasons, ...cascade]
    if (!work) {
      steps.push({ step: station, status: "skipped", reasons: ["none of its inputs changed"], did: [], problems: [] })
      continue
    }
    yield* progress.update(`everything: ${station}`, STATIONS.indexOf(station), STATIONS.length)
    const body: Effect.Effect<Done, unknown, never> = (station === "CAPTURE" ? capture(target, !check, since)
      : station === "DISTIL" ? distilStep(target)
      : station === "HARDEN" ? harden(target)
      : station === "PROJECT" ? project(target, !check)
      : surface(target, !check)) as never
    const outcome = yield* Effect.either(body)
    if (outcome._tag === "Left") {
      steps.push({ step: station, status: "failed", reasons, did: [], problems: [messageOf(outcome.left)] })
      continue
    }
    ran.add(station)
    wrote.push(...outcome.right.wrote)
    // Outside --check, findings are reported; only --check turns them into a failure.
    steps.push({ step: station, status: check ? "checked" : "ran", reasons, did: outcome.right.did, problems: outcome.right.problems })
  }
  yield* progress.done(`everything: ${STATIONS[STATIONS.length - 1]}`)

  // The project bundle's own index and lint: whenever a station ran (a typo-only pass leaves them to the next search).
  const anyRan = ran.size > 0 || mode !== "scoped"
  if (!anyRan) {
    steps.push({ step: "INDEX", status: "skipped", reasons: ["no station ran"], did: [], problems: [] })
    steps.push({ step: "LINT", status: "skipped", reasons: ["no station ran"], did: [], problems: [] })
  } else {
    const indexed = yield* Effect.either(indexBundles({ bundle: target.name }))
    steps.push(indexed._tag === "Left"
      ? { step: "INDEX", status: "failed", reasons: ["a station ran"], did: [], problems: [messageOf(indexed.left)] }
      : { step: "INDEX", status: check ? "checked" : "ran", reasons: [mode === "scoped" ? "a station ran" : `--${mode} runs it`], did: indexed.right.bundles.map((b) => `${b.status}: ${plural(b.files, "file")}, +${b.added} ~${b.updated} -${b.removed}`), problems: [] })
    const linted = yield* Effect.either(lint({ bundle: target.name, strict: false, fix: false, failOn: "error" }))
    steps.push(linted._tag === "Left"
      ? { step: "LINT", status: "failed", reasons: ["a station ran"], did: [], problems: [messageOf(linted.left)] }
      : {
        step: "LINT",
        status: check ? "checked" : "ran",
        reasons: [mode === "scoped" ? "a station ran" : `--${mode} runs it`],
        did: [`${plural(linted.right.counts.error, "error")}, ${plural(linted.right.counts.warning, "warning")}`],
        problems: linted.right.bundles.flatMap((b) => b.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === "error").map((d) => `lint: ${f.path}:${d.line ?? 1}: ${d.message}`)))
      })
  }

  // Each station that ran records the inputs it saw, after the pass (so its own outputs are not new work next time).
  const at = Date.now()
  if (!check && ran.size > 0) {
    const after = yield* scopeState(target)
    for (const station of ran) {
      if (steps.some((s) => s.step === station && s.status === "failed")) continue
      yield* recordStationRun(target.name, { station, at, ...(after.head === undefined ? {} : { head: after.head }), inputs: yield* contentHashes(target, after.inputs[station]) })
    }
  }
  // A station the plan skipped after commits had nothing in them: it is up to date as of this HEAD, with the inputs it
  // saw before. Without this, every later plan re-reads the history since its last real run (a read that grows with it).
  if (mode === "scoped" && state.head !== undefined) {
    for (const station of STATIONS) {
      const run = state.runs.get(station)
      if (run === undefined || run.head === state.head || !steps.some((s) => s.step === station && s.status === "skipped")) continue
      yield* recordStationRun(target.name, { ...run, at, head: state.head })
    }
  }
  const questions = yield* questionBatch(target)
  const ok = check ? steps.every((s) => s.problems.length === 0) : steps.every((s) => s.status !== "failed")
  return { bundle: target.name, mode, plan: state.plan, steps, questions, ok, durationMs: Date.now() - started } satisfies EverythingResult as EverythingResult
})
