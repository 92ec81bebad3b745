import * as path from "node:path"
import { Effect, Layer } from "effect"
import { makeStateDb } from "../../src/layers/sqlite/StateDb.js"
import { workflowRunsFrom, workflowRunsMemory } from "../../src/layers/sqlite/WorkflowRunsSqlite.js"
import { WorkflowRuns } from "../../src/services/WorkflowRuns.js"
import { workflowRunsContract } from "../services/WorkflowRuns.contract.js"
import { tempDir } from "./tempDir.js"

const inTempFile = Layer.scoped(
  WorkflowRuns,
  Effect.flatMap(tempDir("workflow-runs"), (dir) => Effect.map(makeStateDb(path.join(dir, "state.db")), (db) => workflowRunsFrom(db, path.join(dir, "locks"))))
)
const inMemory = Layer.unwrapScoped(Effect.map(tempDir("workflow-locks"), (dir) => workflowRunsMemory(path.join(dir, "locks"))))

workflowRunsContract("sqlite file", inTempFile)
workflowRunsContract("sqlite :memory:", inMemory)
