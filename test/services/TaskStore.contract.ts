import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { TaskStore } from "../../src/services/TaskStore.js"

let counter = 0
const fresh = (): string => `task-${++counter}`

/** R-ARCH-5: every TaskStore layer passes this suite. The layer is shared, so each case uses aliases of its own. */
export const taskStoreContract = (name: string, layer: Layer.Layer<TaskStore, unknown>) =>
  layer_(layer)(`TaskStore contract: ${name}`, (it) => {
    it.effect("put stores a task record and put again replaces it", () =>
      Effect.gen(function* () {
        const store = yield* TaskStore
        const alias = fresh()
        expect(yield* store.get(alias)).toBeUndefined()
        const record = { alias, exportRef: `b//tasks/${alias}`, digest: "a".repeat(64), schedule: "@daily", enabled: true, updatedAt: "2026-12-01T00:00:00.000Z" }
        yield* store.put(record)
        expect(yield* store.get(alias)).toEqual(record)
        yield* store.put({ ...record, enabled: false, schedule: "0 3 * * *" })
        expect(yield* store.get(alias)).toMatchObject({ enabled: false, schedule: "0 3 * * *" })
        expect((yield* store.list).filter((r) => r.alias === alias)).toHaveLength(1)
      }))

    it.effect("a run is recorded as running, then finished with exit and duration; history is newest first", () =>
      Effect.gen(function* () {
        const store = yield* TaskStore
        const alias = fresh()
        const base = { alias, exportRef: `b//tasks/${alias}`, digest: "d", trigger: "manual" as const, target: "command" }
        const first = yield* store.startRun({ ...base, startedAt: "2026-12-01T00:00:00.000Z" })
        expect((yield* store.history(alias, 10))[0]).toMatchObject({ id: first, status: "running" })
        yield* store.finishRun(first, { finishedAt: "2026-12-01T00:00:01.500Z", durationMs: 1500, exit: 0, status: "ok" })
        const second = yield* store.startRun({ ...base, trigger: "scheduled", startedAt: "2026-12-02T03:00:00.000Z" })
        yield* store.finishRun(second, { finishedAt: "2026-12-02T03:00:02.000Z", durationMs: 2000, exit: 124, status: "timeout" })
        const runs = yield* store.history(alias, 10)
        expect(runs.map((r) => [r.id, r.trigger, r.status, r.exit, r.durationMs])).toEqual([[second, "scheduled", "timeout", 124, 2000], [first, "manual", "ok", 0, 1500]])
        expect(yield* store.history(alias, 1)).toHaveLength(1)
        expect((yield* store.history(undefined, 100)).some((r) => r.id === second)).toBe(true)
      }))
  })
