import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import type { RunRecord } from "../../src/domain/Improve.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { ImproveStore } from "../../src/services/ImproveStore.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"

/** ImproveStore (one layer: ImproveStoreSqlite over state.db and $DATA/locks/improve.lock). */

const run = (id: string, startedAt: string): RunRecord => ({
  id, startedAt, finishedAt: startedAt, durationMs: 1, dryRun: false, options: {}, generator: "none", targets: [], modelCalls: 0, cachedCalls: 0,
  inputTokens: 0, outputTokens: 0, proposals: [], autoApplied: [], status: "nothing-to-do"
})

describe("ImproveStore contract: sqlite", () => {
  it.effect("run records newest first, bounded by `last`; attempts by fingerprint newest first; outcomes in order", () =>
    Effect.gen(function* () {
      const store = yield* ImproveStore
      yield* store.recordRun(run("a", "2026-01-01T00:00:00.000Z"))
      yield* store.recordRun(run("b", "2026-01-02T00:00:00.000Z"))
      expect((yield* store.runs(10)).map((r) => r.id)).toEqual(["b", "a"])
      expect((yield* store.runs(1)).map((r) => r.id)).toEqual(["b"])
      yield* store.recordAttempt({ runId: "a", fingerprint: "f1", recipe: "revise", target: "t", outcome: "generation-failed", reason: "timeout", at: "2026-01-01T00:00:00.000Z" })
      yield* store.recordAttempt({ runId: "b", fingerprint: "f1", recipe: "revise", target: "t", outcome: "proposed", proposalId: "p1", at: "2026-01-02T00:00:00.000Z" })
      expect((yield* store.attempts("f1")).map((a) => a.outcome)).toEqual(["proposed", "generation-failed"])
      expect(yield* store.attempts("f2")).toEqual([])
      expect((yield* store.proposedAttempts).map((a) => a.proposalId)).toEqual(["p1"])
      yield* store.recordOutcome({ proposalId: "p1", fingerprint: "f1", target: "t", kind: "accepted", at: "2026-01-03T00:00:00.000Z" })
      expect(yield* store.outcomes).toEqual([{ proposalId: "p1", fingerprint: "f1", target: "t", kind: "accepted", at: "2026-01-03T00:00:00.000Z" }])
    }).pipe(Effect.provide(AkmTest)))

  it.live("the run lease: a second run skips (Locked) or waits; the lease file is gone after the run", () =>
    Effect.gen(function* () {
      const store = yield* ImproveStore
      const lease = path.join((yield* WorkspaceConfig).paths.locksDir, "improve.lock")
      const inner = yield* store.withRunLease(store.withRunLease(Effect.succeed("inner"), { skipIfLocked: true }), { skipIfLocked: false })
      expect(inner).toMatchObject({ _tag: "Ran", value: { _tag: "Locked", holder: expect.stringContaining("the improve lease is held by akm process") } })
      expect(fs.existsSync(lease)).toBe(false)
      expect(yield* store.withRunLease(Effect.succeed(1), { skipIfLocked: true })).toEqual({ _tag: "Ran", value: 1 })
    }).pipe(Effect.provide(AkmTest)))
})
