import { redact, redactFields, trustedText } from "../../src/domain/Redaction.js"
import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { makeStateStore, StateStoreMemory } from "../../src/layers/sqlite/StateStoreSqlite.js"
import { StateStore } from "../../src/services/StateStore.js"
import { stateStoreContract } from "../services/StateStore.contract.js"
import { tempDir } from "./tempDir.js"

const stateInTempFile = Layer.scoped(StateStore, Effect.flatMap(tempDir("state"), (dir) => makeStateStore(path.join(dir, "state.db"))))

stateStoreContract("sqlite file", stateInTempFile)
stateStoreContract("sqlite :memory:", StateStoreMemory)

describe("StateStoreSqlite", () => {
  it.scoped("events are durable: a reopened state.db has them, and cursors keep increasing", () =>
    Effect.gen(function* () {
      const file = path.join(yield* tempDir("state-durable"), "state.db")
      const first = yield* Effect.scoped(
        Effect.flatMap(makeStateStore(file), (store) => store.appendEvent("bundle.added", trustedText("notes"), redactFields({ adapter: "okf" }, (text) => redact(text))))
      )
      const store = yield* makeStateStore(file)
      expect(yield* store.events({})).toMatchObject([{ id: first, kind: "bundle.added", subject: "notes", data: { adapter: "okf" } }])
      expect(yield* store.appendEvent("bundle.removed", trustedText("notes"))).toBeGreaterThan(first)
      expect((yield* store.init).path).toBe(file)
    }))
})
