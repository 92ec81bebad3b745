import * as path from "node:path"
import type { Effect } from "effect"
import type { ApplyRequest } from "../../src/services/Transaction.js"
import type { ChildOp } from "./txChild.js"
import { POST_MARK, inProcess, integrityCheck, leaseHeld, leftoverJournals, makeWorkspace, pointName, runChild, sha256, snapshot, type ChildRun } from "./txHarness.js"

/**
 * The crash matrix's operations (R-TX-10): a two-file apply, a three-file set
 * with a create (in new directories) and a delete, and the revert of that
 * set. Each names the crash points its run passes.
 */

export interface Scenario {
  readonly name: string
  readonly files: Readonly<Record<string, string>>
  /** Brings a fresh workspace to the pre-state and returns the operation to crash. */
  readonly prepare: (ws: ReturnType<typeof makeWorkspace>) => Promise<ChildOp>
  /** Every crash point the operation passes, in order. */
  readonly points: ReadonlyArray<string>
}

/**
 * The phases `npm test` crashes at, one trial each (R-TX-10): after the lease,
 * after the journal, mid-backups, mid-write (temp file fsynced, not renamed),
 * after the first of several writes, after a delete, after all writes before
 * the mark, after the mark, and after the journal's removal (the lease left
 * by a dead process). The second occurrences and the git point run in the
 * random trials of the slow suite and in test/crash/git.test.ts.
 */
export const MATRIX_PHASES = new Set(["after-lease", "after-journal", "backup#1", "temp-written#1", "write#1", "delete", "after-writes", "after-commit-mark", "after-journal-removed"])

const A = "# Alpha\n\nThe first note, before.\n"
const B = "# Beta\n\nThe second note, before.\n"
const GONE = "# Gone\n\nA note the set deletes.\n"

const twoFiles: ApplyRequest = {
  id: "p-apply",
  changes: [
    { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256(A), after: "# Alpha\n\nThe first note, after.\n" },
    { bundle: "notes", path: "knowledge/b.md", beforeHash: sha256(B), after: "# Beta\n\nThe second note, after.\n" }
  ]
}

const threeFiles: ApplyRequest = {
  id: "p-multi",
  changes: [
    { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256(A), after: "# Alpha\n\nRewritten by the set.\n" },
    { bundle: "notes", path: "knowledge/new/deep/c.md", beforeHash: null, after: "# Gamma\n\nCreated by the set.\n" },
    { bundle: "notes", path: "knowledge/gone.md", beforeHash: sha256(GONE), delete: true }
  ]
}

const tail = ["after-writes", "after-commit-mark", "after-git-commit", "after-journal-removed"]

export const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "apply (2 files)",
    files: { "knowledge/a.md": A, "knowledge/b.md": B },
    prepare: () => Promise.resolve({ op: "apply", request: twoFiles }),
    points: ["after-lease", "after-journal", "backup#1", "backup#2", "temp-written#1", "write#1", "temp-written#2", "write#2", ...tail]
  },
  {
    name: "3-file set (update, create, delete)",
    files: { "knowledge/a.md": A, "knowledge/gone.md": GONE },
    prepare: () => Promise.resolve({ op: "apply", request: threeFiles }),
    points: ["after-lease", "after-journal", "backup#1", "backup#2", "temp-written#1", "write#1", "temp-written#2", "write#2", "delete", ...tail]
  },
  {
    name: "revert of the 3-file set",
    files: { "knowledge/a.md": A, "knowledge/gone.md": GONE },
    prepare: async (ws) => {
      const applied = await inProcess(ws, (t) => t.apply(threeFiles))
      return { op: "revert", request: { id: "p-multi-revert", changes: applied.changes } }
    },
    // Reverting: a.md and gone.md are written back (a.md and c.md backed up), c.md deleted.
    points: ["after-lease", "after-journal", "backup#1", "backup#2", "temp-written#1", "write#1", "temp-written#2", "write#2", "delete", ...tail]
  }
]

/** The tree an uncrashed run of the scenario leaves. */
export const postState = async (scenario: Scenario): Promise<Record<string, string>> => {
  const ws = makeWorkspace(scenario.files)
  try {
    const op = await scenario.prepare(ws)
    await inProcess(ws, (t): Effect.Effect<unknown, unknown> =>
      op.op === "apply" ? t.apply(op.request) : op.op === "revert" ? t.revert(op.request) : op.op === "twoPhase" ? t.twoPhase(op.request, op.retire) : t.recover
    )
    return snapshot(ws.root)
  } finally {
    ws.dispose()
  }
}

export interface TrialOutcome {
  readonly crashed: ChildRun
  readonly recovered: ChildRun
  /** "pre" or "post" when the recovered tree is byte-identical to one of them, else "neither". */
  readonly state: "pre" | "post" | "neither"
  /** What the crash point says the state must be. */
  readonly expected: "pre" | "post"
  readonly leftovers: ReadonlyArray<string>
  readonly leaseHeld: boolean
  readonly integrity: string
  readonly id: string
}

/** One crash trial: prepare, crash the child at `crashAt`, recover in a fresh child, compare the tree. */
export const crashTrial = async (script: string, scenario: Scenario, post: Record<string, string>, crashAt: string): Promise<TrialOutcome> => {
  const ws = makeWorkspace(scenario.files)
  try {
    const op = await scenario.prepare(ws)
    const pre = snapshot(ws.root)
    const crashed = await runChild(script, ws, op, { AKM_TX_CRASH_AT: crashAt })
    const recovered = await runChild(script, ws, { op: "recover" })
    const after = snapshot(ws.root)
    const same = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(a) === JSON.stringify(b)
    const expected = crashed.crashedAt === undefined || POST_MARK.has(pointName(crashed.crashedAt)) ? "post" : "pre"
    return {
      crashed,
      recovered,
      state: same(after, pre) ? "pre" : same(after, post) ? "post" : "neither",
      expected,
      leftovers: leftoverJournals(ws),
      leaseHeld: leaseHeld(ws),
      integrity: integrityCheck(path.join(ws.dataDir, "state.db")),
      id: op.op === "recover" ? "" : op.request.id
    }
  } finally {
    ws.dispose()
  }
}

/** Why a trial's outcome breaks R-TX-10, or undefined when it holds. */
export const trialProblem = (trial: TrialOutcome): string | undefined => {
  const report = trial.recovered.result?.value as { rolledBack: Array<string>; rolledForward: Array<string>; refused: Array<unknown> } | undefined
  if (trial.crashed.crashedAt !== undefined && trial.crashed.signal !== "SIGKILL") return `the child was not killed (${trial.crashed.signal ?? trial.crashed.code})`
  if (trial.recovered.result?.ok !== true) return `recovery failed: ${trial.recovered.stdout}${trial.recovered.stderr}`
  if (trial.state !== trial.expected) return `after recovery the tree is ${trial.state}, expected ${trial.expected}`
  if (trial.leftovers.length > 0) return `journals left: ${trial.leftovers.join(", ")}`
  if (trial.leaseHeld) return "the lease is still held"
  if (trial.integrity !== "ok") return `state.db integrity: ${trial.integrity}`
  if (report === undefined || report.refused.length > 0) return `recovery refused: ${JSON.stringify(report)}`
  const point = trial.crashed.crashedAt === undefined ? undefined : trial.crashed.crashedAt.split("#")[0]
  const journalled = point !== undefined && point !== "after-lease" && point !== "after-journal-removed"
  if (journalled && trial.expected === "pre" && !report.rolledBack.includes(trial.id)) return `recovery did not report the rollback: ${JSON.stringify(report)}`
  if (journalled && trial.expected === "post" && !report.rolledForward.includes(trial.id)) return `recovery did not report the roll-forward: ${JSON.stringify(report)}`
  return undefined
}
