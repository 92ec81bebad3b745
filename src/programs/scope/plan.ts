import { Effect, Either } from "effect"
import * as path from "node:path"
import { INDEX_PATH } from "../../domain/brief/Brief.js"
import { parseIndex } from "../../domain/brief/Index.js"
import { scopeMatcher } from "../../domain/project/Globs.js"
import { inputReason, planScope, STATIONS, type Change, type ScopeInput, type Station, type StationPlan } from "../../domain/scope/Plan.js"
import { GitHistory } from "../../services/GitHistory.js"
import { resolveProjectBundle, type ProjectTarget } from "../ledger/projectBundle.js"
import { readProjectConfig } from "../ledger/store.js"
import { readOptional } from "../project/files.js"
import { loadRules, type ProjectInput } from "../project/rules.js"
import { derivedCache } from "./derivedCache.js"
import { contentHashes, lastStationRuns, type StationRun } from "./stationRuns.js"

export interface ScopePlan {
  readonly bundle: string
  /** Where the changes came from: git, or none (not a repository: every station has work). */
  readonly source: "git" | "none"
  readonly changed: number
  readonly stations: ReadonlyArray<StationPlan>
}

/** Repository-relative changes made relative to the project folder (a project may sit below the repository's top). */
const relativeTo = (gitRoot: string, projectRoot: string, changes: ReadonlyArray<Change>): ReadonlyArray<Change> => {
  const prefix = path.relative(path.resolve(gitRoot), path.resolve(projectRoot)).split(path.sep).join("/")
  if (prefix === "") return changes
  return changes.filter((c) => c.path.startsWith(`${prefix}/`)).map((c) => ({ ...c, path: c.path.slice(prefix.length + 1) }))
}

/** What the plan needs of .ai/index.json: whether it is there and well-formed, and each item's path and in_brief. */
interface IndexSummary {
  readonly state: "missing" | "malformed" | "ok"
  readonly items: ReadonlyArray<{ readonly path: string; readonly in_brief: boolean }>
}

/** Decoding 3,000 entries costs more than the rest of a typo's plan: the summary is kept while the file's stats stay. */
const indexSummary = (target: ProjectTarget) =>
  derivedCache(target, "index-json", [INDEX_PATH], "index-json-1", Effect.gen(function* () {
    const text = yield* Effect.orElseSucceed(readOptional(target, INDEX_PATH), () => undefined)
    const parsed = text === undefined ? undefined : parseIndex(text)
    const value: IndexSummary = parsed === undefined ? { state: "missing", items: [] }
      : Either.isLeft(parsed) ? { state: "malformed", items: [] }
      : { state: "ok", items: parsed.right.items.map((e) => ({ path: e.path, in_brief: e.in_brief })) }
    return { value, cacheable: true }
  }))

export interface ScopeState {
  readonly plan: ScopePlan
  /** Each station's changed inputs in the working tree now (scope.ignore applied): what a run of it records as seen. */
  readonly inputs: Readonly<Record<Station, ReadonlyArray<string>>>
  /** The inputs as the domain plan saw them (to test a path an earlier station wrote). */
  readonly input: ScopeInput
  /** The commit HEAD names, when there is one. */
  readonly head?: string | undefined
  /** Each station's last run. */
  readonly runs: ReadonlyMap<Station, StationRun>
}

/**
 * The working tree against HEAD (plus untracked files, minus scope.ignore),
 * the commits since each station's last run, and what the brief and the
 * rules link to: which station has work, and each station's inputs.
 */
export const scopeState = (target: ProjectTarget) =>
  Effect.gen(function* () {
    const { config } = yield* readProjectConfig(target.root)
    const git = yield* GitHistory
    // scope.ignore globs are relative to the project folder; the walk names paths from the repository's top.
    const ignored = config.scope.ignore.length === 0 ? undefined : scopeMatcher(config.scope.ignore)
    const prefix = yield* Effect.map(Effect.either(git.trackedFiles(target.root)), (t) => (t._tag === "Right" ? path.relative(path.resolve(t.right.root), path.resolve(target.root)).split(path.sep).join("/") : ""))
    const skip = ignored === undefined ? undefined : (p: string) => {
      const rel = prefix === "" ? p : p.startsWith(`${prefix}/`) ? p.slice(prefix.length + 1) : undefined
      return rel !== undefined && (ignored(rel) || ignored(`${rel}/`))
    }
    const status = yield* Effect.either(git.workingChanges(target.root, skip))
    const index = yield* indexSummary(target)
    const indexed = index.items
    const briefed = new Set(indexed.filter((e) => e.in_brief).map((e) => e.path))
    const none = { CAPTURE: [], DISTIL: [], HARDEN: [], PROJECT: [], SURFACE: [] }
    // The rules only matter when a failure record changed (HARDEN's linked failures): 200 rules cost more than the rest of a typo's plan.
    const rulesLinks = Effect.map(loadRules(target), (rules) => new Set(rules.rules.flatMap((r) => r.caused).map((c) => c.replace(/^failure\//, ""))))
    const FAILURE = /^\.ai\/ledger\/failure\//
    if (status._tag === "Left") {
      const linkedFailures = yield* rulesLinks
      const reason = `no working-tree diff (${status.left.reason}): every station runs`
      const input: ScopeInput = { changes: [], ignore: [], briefed, newCommits: 0, linkedFailures }
      const plan: ScopePlan = { bundle: target.name, source: "none", changed: 0, stations: planScope(input).map((s) => ({ ...s, work: true, reasons: [reason] })) }
      return { plan, inputs: none, input, runs: new Map() } satisfies ScopeState as ScopeState
    }
    const notIgnored = (c: Change) => ignored === undefined || !ignored(c.path)
    const changes = relativeTo(status.right.root, target.root, status.right.changes).filter(notIgnored)

    // Since each station's last run: commits after it are its inputs too; a change it already saw (same bytes) is not.
    const runs = yield* lastStationRuns(target.name)
    const oldest = Math.min(...[...runs.values()].map((r) => r.at))
    const moved = [...runs.values()].some((r) => r.head !== status.right.head)
    // A minute's margin: committer times are whole seconds; the recorded HEAD cuts the list exactly.
    const history = runs.size === 0 || !moved ? [] : yield* Effect.orElseSucceed(Effect.map(git.since(target.root, oldest - 60_000), (w) => w.commits), () => [])
    const failureChanged = changes.some((c) => FAILURE.test(c.path)) || history.some((c) => c.paths.some((p) => FAILURE.test(p) || p.includes("/.ai/ledger/failure/")))
    const linkedFailures = failureChanged ? yield* rulesLinks : new Set<string>()
    const base: ScopeInput = { changes, ignore: [], briefed, newCommits: 0, linkedFailures }
    const indexedPaths = new Set(indexed.map((e) => e.path))
    const committed: Partial<Record<Station, ReadonlyArray<Change>>> = {}
    let newCommits = 0
    for (const [station, run] of runs) {
      const cut = run.head === undefined ? -1 : history.findIndex((c) => c.sha === run.head)
      const after = cut >= 0 ? history.slice(0, cut) : run.head === status.right.head ? [] : history.filter((c) => c.time > run.at - 1000)
      if (station === "CAPTURE") newCommits = after.length
      const paths = [...new Set(after.flatMap((c) => c.paths))].map((p): Change => ({ path: p, status: "modified" }))
      committed[station] = relativeTo(status.right.root, target.root, paths).filter(notIgnored)
    }
    const present = yield* contentHashes(target, [...new Set([...changes, ...Object.values(committed).flat()].filter((c) => STATIONS.some((s) => runs.has(s) && inputReason(s, c, base) !== undefined)).map((c) => c.path))])
    const withStatus = (c: Change): Change => (c.status !== "modified" || changes.some((w) => w.path === c.path) ? c : present[c.path] === "-" ? { ...c, status: "deleted" } : indexedPaths.has(c.path) || indexed.length === 0 ? c : { ...c, status: "added" })
    const input: ScopeInput = {
      ...base,
      newCommits,
      committed: Object.fromEntries(Object.entries(committed).map(([s, cs]) => [s, cs.map(withStatus)])),
      seen: (station, c) => {
        const run = runs.get(station)
        return run !== undefined && present[c.path] !== undefined && run.inputs[c.path] === present[c.path]
      }
    }
    const stations = planScope(input).map((s) =>
      s.station === "SURFACE" && index.state === "missing" ? { ...s, work: true, reasons: [...s.reasons, `${INDEX_PATH} does not exist yet`] }
        : s.station === "SURFACE" && index.state === "malformed" ? { ...s, work: true, reasons: [...s.reasons, `${INDEX_PATH} is malformed`] }
        : s)
    const inputs = Object.fromEntries(STATIONS.map((s) => [s, changes.filter((c) => inputReason(s, c, base) !== undefined).map((c) => c.path)])) as unknown as Record<Station, ReadonlyArray<string>>
    return { plan: { bundle: target.name, source: "git", changed: changes.length, stations }, inputs, input, head: status.right.head, runs } satisfies ScopeState as ScopeState
  })

/**
 * `akm scope plan` (R-SCP-2): which station has work and why, from the
 * working tree against HEAD (plus untracked files, minus scope.ignore),
 * what changed since each station's last run, and what the brief and the
 * rules link to.
 */
export const scopePlan = Effect.fn("scope.plan")(function* (input: ProjectInput = {}) {
  const target = yield* resolveProjectBundle(input)
  return (yield* scopeState(target)).plan
})
