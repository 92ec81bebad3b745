import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, Either, type Layer } from "effect"
import type { RunRecord } from "../../src/domain/WorkflowRun.js"
import { WorkflowRuns } from "../../src/services/WorkflowRuns.js"

/** R-ARCH-5: every WorkflowRuns layer passes this suite; each case uses run ids of its own. */
let counter = 0
const run = (overrides: Partial<Omit<RunRecord, "steps">> = {}): Omit<RunRecord, "steps"> => ({
  id: `run-${++counter}-${Math.random().toString(16).slice(2, 8)}`,
  workflow: "ops//workflows/release",
  status: "running",
  frozen: "{\"format\":1}",
  frozenHash: "f".repeat(64),
  createdAt: `2026-12-01T10:00:0${counter % 10}.000Z`,
  updatedAt: `2026-12-01T10:00:0${counter % 10}.000Z`,
  ...overrides
})

export const workflowRunsContract = (name: string, layer: Layer.Layer<WorkflowRuns, unknown>) =>
  layer_(layer)(`WorkflowRuns contract: ${name}`, (it) => {
    it.effect("create stores the run with its steps pending; get reads it back byte for byte (R-RT-4)", () =>
      Effect.gen(function* () {
        const store = yield* WorkflowRuns
        const r = run()
        yield* store.create(r, ["check", "tag"])
        expect(yield* store.get(r.id)).toEqual({ ...r, steps: [{ index: 0, id: "check", status: "pending", attempts: 0 }, { index: 1, id: "tag", status: "pending", attempts: 0 }] })
        expect(yield* store.get("no-such-run")).toBeUndefined()
      }))

    it.effect("updateStep changes only the fields given and counts attempts (R-RT-5)", () =>
      Effect.gen(function* () {
        const store = yield* WorkflowRuns
        const r = run()
        yield* store.create(r, ["a", "b"])
        yield* store.updateStep(r.id, 0, { status: "running", addAttempt: true, startedAt: "2026-12-01T10:01:00.000Z" }, "2026-12-01T10:01:00.000Z")
        yield* store.updateStep(r.id, 0, { status: "running", addAttempt: true }, "2026-12-01T10:02:00.000Z")
        yield* store.updateStep(r.id, 0, { status: "done", exitCode: 0, summary: "ok", finishedAt: "2026-12-01T10:03:00.000Z" }, "2026-12-01T10:03:00.000Z")
        const got = (yield* store.get(r.id))!
        expect(got.steps[0]).toEqual({ index: 0, id: "a", status: "done", attempts: 2, exitCode: 0, summary: "ok", startedAt: "2026-12-01T10:01:00.000Z", finishedAt: "2026-12-01T10:03:00.000Z" })
        expect(got.steps[1]).toEqual({ index: 1, id: "b", status: "pending", attempts: 0 })
        expect(got.updatedAt).toBe("2026-12-01T10:03:00.000Z")
        yield* store.updateStep(r.id, 0, { summary: undefined }, "2026-12-01T10:04:00.000Z")
        expect((yield* store.get(r.id))!.steps[0]!.summary).toBeUndefined()
        yield* store.updateStep(r.id, 1, { pid: 4242 }, "2026-12-01T10:05:00.000Z")
        expect((yield* store.get(r.id))!.steps[1]!.pid).toBe(4242)
        yield* store.updateStep(r.id, 1, { pid: undefined }, "2026-12-01T10:06:00.000Z")
        expect((yield* store.get(r.id))!.steps[1]!.pid).toBeUndefined()
      }))

    it.effect("setStatus sets status and message; list is newest first with steps", () =>
      Effect.gen(function* () {
        const store = yield* WorkflowRuns
        const older = run({ createdAt: "2026-11-01T00:00:00.000Z" })
        const newer = run({ createdAt: "2026-11-02T00:00:00.000Z" })
        yield* store.create(older, ["x"])
        yield* store.create(newer, ["y"])
        yield* store.setStatus(older.id, "waiting", "at the gate", "2026-11-03T00:00:00.000Z")
        const got = (yield* store.get(older.id))!
        expect([got.status, got.message, got.updatedAt]).toEqual(["waiting", "at the gate", "2026-11-03T00:00:00.000Z"])
        const listed = yield* store.list(1000)
        const ids = listed.map((x) => x.id)
        expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id))
        expect(listed.find((x) => x.id === newer.id)!.steps.map((s) => s.id)).toEqual(["y"])
        yield* store.setStatus(older.id, "done", undefined, "2026-11-04T00:00:00.000Z")
        expect((yield* store.get(older.id))!.message).toBeUndefined()
      }))

    it.effect("exclusive: one driver per run; a second one is refused while the first holds it, another run is free", () =>
      Effect.gen(function* () {
        const store = yield* WorkflowRuns
        const r = run()
        yield* store.create(r, ["a"])
        const inner = yield* store.exclusive(r.id, Effect.either(store.exclusive(r.id, Effect.succeed("second"))))
        expect(Either.isLeft(inner)).toBe(true)
        expect(yield* store.exclusive(r.id, store.exclusive(`${r.id}-other`, Effect.succeed("free")))).toBe("free")
        expect(yield* store.exclusive(r.id, Effect.succeed("after release"))).toBe("after release")
      }))
  })
