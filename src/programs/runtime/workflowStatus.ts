import { Clock, Effect } from "effect"
import { Conflict, NotFound } from "../../domain/Errors.js"
import { LogStore } from "../../services/LogStore.js"
import { WorkflowRuns } from "../../services/WorkflowRuns.js"
import { recordEvent } from "../events.js"
import { thaw } from "./workflowRun.js"

const noRun = (id: string) => new NotFound({ what: "workflow run", name: id, message: `no workflow run '${id}'`, hint: "list runs with `akm workflow list`" })

/** `akm workflow status <run-id>`: the run, each step's state, the frozen plan's identity and the latest log lines. */
export const workflowStatus = Effect.fn("runtime.workflowStatus")(function* (id: string, options: { readonly logLines: number }) {
  const run = yield* (yield* WorkflowRuns).get(id)
  if (run === undefined) return yield* noRun(id)
  const frozen = yield* Effect.either(thaw(run))
  const lines = options.logLines <= 0 ? [] : yield* (yield* LogStore).lines(`workflow/${id}`, { limit: options.logLines })
  return {
    id: run.id,
    workflow: run.workflow,
    status: run.status,
    message: run.message,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    // The frozen identity, or why it cannot be trusted any more.
    frozen: frozen._tag === "Right"
      ? { intact: true as const, digest: frozen.right.digest, planHash: frozen.right.planHash, adapter: frozen.right.adapter, bundleRevision: frozen.right.bundleRevision, params: frozen.right.params, env: frozen.right.env }
      : { intact: false as const, problem: frozen.left.message },
    steps: run.steps,
    logs: lines.map((line) => ({ at: line.at, level: line.level, message: line.message }))
  }
})

/** `akm workflow list`: the latest runs, newest first. */
export const workflowList = Effect.fn("runtime.workflowList")(function* (limit: number) {
  const runs = yield* (yield* WorkflowRuns).list(limit)
  return {
    runs: runs.map((run) => ({
      id: run.id,
      workflow: run.workflow,
      status: run.status,
      done: run.steps.filter((s) => s.status === "done").length,
      steps: run.steps.length,
      createdAt: run.createdAt,
      updatedAt: run.updatedAt
    }))
  }
})

/** `akm workflow abandon <run-id>`: the run is closed for good (never resumed); finished runs stay as they are. */
export const workflowAbandon = Effect.fn("runtime.workflowAbandon")(function* (id: string) {
  const runs = yield* WorkflowRuns
  const run = yield* runs.get(id)
  if (run === undefined) return yield* noRun(id)
  if (run.status === "done") return yield* new Conflict({ message: `run ${id} has finished; there is nothing to abandon`, hint: "see it with `akm workflow status " + id + "`" })
  if (run.status === "abandoned") return { id, workflow: run.workflow, abandoned: true, already: true }
  // Under the run's lease: a run another process is driving is refused as busy, never changed under it.
  yield* runs.exclusive(id, Effect.gen(function* () {
    yield* runs.setStatus(id, "abandoned", "abandoned by the operator", new Date(yield* Clock.currentTimeMillis).toISOString())
  }))
  yield* recordEvent("workflow.abandoned", run.workflow, { run: id })
  return { id, workflow: run.workflow, abandoned: true, already: false }
})
