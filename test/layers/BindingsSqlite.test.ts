import * as path from "node:path"
import { Effect, Layer } from "effect"
import { bindingsFrom, BindingsMemory } from "../../src/layers/sqlite/BindingsSqlite.js"
import { makeStateDb } from "../../src/layers/sqlite/StateDb.js"
import { Bindings } from "../../src/services/Bindings.js"
import { bindingsContract } from "../services/Bindings.contract.js"
import { tempDir } from "./tempDir.js"

const inTempFile = Layer.scoped(Bindings, Effect.flatMap(tempDir("bindings"), (dir) => Effect.flatMap(makeStateDb(path.join(dir, "state.db")), bindingsFrom)))

bindingsContract("sqlite file", inTempFile)
bindingsContract("sqlite :memory:", BindingsMemory)
