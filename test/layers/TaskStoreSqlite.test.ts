import * as path from "node:path"
import { Effect, Layer } from "effect"
import { TaskStoreMemory, taskStoreFrom } from "../../src/layers/sqlite/TaskStoreSqlite.js"
import { makeStateDb } from "../../src/layers/sqlite/StateDb.js"
import { TaskStore } from "../../src/services/TaskStore.js"
import { taskStoreContract } from "../services/TaskStore.contract.js"
import { tempDir } from "./tempDir.js"

const inTempFile = Layer.scoped(TaskStore, Effect.flatMap(tempDir("tasks"), (dir) => Effect.flatMap(makeStateDb(path.join(dir, "state.db")), taskStoreFrom)))

taskStoreContract("sqlite file (migration 0010_tasks)", inTempFile)
taskStoreContract("sqlite :memory:", TaskStoreMemory)
