import { Effect, Either } from "effect"
import * as path from "node:path"
import { INDEX_PATH } from "../../domain/brief/Brief.js"
import { parseIndex } from "../../domain/brief/Index.js"
import { scopeMatcher } from "../../domain/project/Globs.js"
import { planScope, type Change, type StationPlan } from "../../domain/scope/Plan.js"
import { GitHistory } from "../../services/GitHistory.js"
import { resolveProjectBundle } from "../ledger/projectBundle.js"
import { readProjectConfig } from "../ledger/store.js"
import { readOptional } from "../project/files.js"
import { loadRules, type ProjectInput } from "../project/rules.js"

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

/**
 * `akm scope plan` (R-SCP-2): which station has work and why, from the
 * working tree against HEAD (plus untracked files, minus scope.ignore) and
 * what the brief and the rules link to.
 */
export const scopePlan = Effect.fn("scope.plan")(function* (input: ProjectInput = {}) {
  const target = yield* resolveProjectBundle(input)
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
  const indexText = yield* Effect.orElseSucceed(readOptional(target, INDEX_PATH), () => undefined)
  const index = indexText === undefined ? undefined : parseIndex(indexText)
  const briefed = new Set(index !== undefined && Either.isRight(index) ? index.right.items.filter((e) => e.in_brief).map((e) => e.path) : [])
  const rules = yield* loadRules(target)
  const linkedFailures = new Set(rules.rules.flatMap((r) => r.caused).map((c) => c.replace(/^failure\//, "")))
  if (status._tag === "Left") {
    const reason = `no working-tree diff (${status.left.reason}): every station runs`
    return { bundle: target.name, source: "none", changed: 0, stations: planScope({ changes: [], ignore: [], briefed, newCommits: 0, linkedFailures }).map((s) => ({ ...s, work: true, reasons: [reason] })) } satisfies ScopePlan as ScopePlan
  }
  const changes = relativeTo(status.right.root, target.root, status.right.changes)
  const stations = planScope({ changes, ignore: config.scope.ignore, briefed, newCommits: 0, linkedFailures }).map((s) =>
    s.station === "SURFACE" && index === undefined ? { ...s, work: true, reasons: [...s.reasons, `${INDEX_PATH} does not exist yet`] }
      : s.station === "SURFACE" && index !== undefined && Either.isLeft(index) ? { ...s, work: true, reasons: [...s.reasons, `${INDEX_PATH} is malformed`] }
      : s)
  return { bundle: target.name, source: "git", changed: changes.length, stations } satisfies ScopePlan as ScopePlan
})
