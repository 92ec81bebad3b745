import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, TestClock } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { configSet } from "../../src/programs/config.js"
import { memoryConsolidate } from "../../src/programs/memory/consolidate.js"
import { memoryStatus } from "../../src/programs/memory/status.js"
import { captureMemory, remember } from "../../src/programs/remember.js"
import { EvidenceStore } from "../../src/services/EvidenceStore.js"
import { mine } from "./writeFixtures.js"

// Queued background intake is drained once its tier is no longer blocked (R-MEM-2): nothing stays queued unseen.

const memoryFiles = (root: string) => fs.readdirSync(path.join(root, "memories")).sort()

describe("queued intake", () => {
  it.effect("a consolidation that unblocks the tier writes the queue, oldest first, up to high water; the rest waits, counted", () =>
    Effect.gen(function* () {
      const root = yield* mine
      yield* configSet("memory.highWaterItems", "4")
      yield* configSet("memory.lowWaterItems", "3")
      for (const text of ["Fact one is unique.", "Fact two is unique.", "Fact three is unique.", "Fact four is unique.", "Fact five is unique."]) yield* remember({ text, bundle: "mine" })
      expect((yield* memoryStatus()).tiers[0]).toMatchObject({ items: 5, state: "blocked" })
      for (const text of ["Queued first.", "Queued second.", "Queued third."]) expect(yield* captureMemory({ text, bundle: "mine" })).toMatchObject({ queued: true })
      expect((yield* memoryStatus()).queued).toBe(3)
      // A dry run counts the queue and writes nothing.
      const dry = yield* memoryConsolidate({ dryRun: true })
      expect(dry.intake).toEqual({ written: [], waiting: [expect.objectContaining({ bundle: "mine", count: 3 })] })
      // Still blocked: consolidate writes nothing from the queue and says why.
      const blocked = yield* memoryConsolidate({})
      expect(blocked.intake.written).toEqual([])
      expect(blocked.intake.waiting).toEqual([expect.objectContaining({ bundle: "mine", count: 3, why: expect.stringContaining("still blocked") })])
      // Two memories go by hand; the tier (3 items) is under high water (4): one queued memory fits.
      fs.rmSync(path.join(root, "memories", "fact-one-is-unique.md"))
      fs.rmSync(path.join(root, "memories", "fact-two-is-unique.md"))
      const run = yield* memoryConsolidate({})
      expect(run.intake.written).toEqual([expect.objectContaining({ bundle: "mine", ref: "mine//memories/queued-first" })])
      expect(run.intake.waiting).toEqual([expect.objectContaining({ count: 2, why: expect.stringContaining("high water (4)") })])
      expect(memoryFiles(root)).toContain("queued-first.md")
      expect((yield* memoryStatus()).queued).toBe(2)
      // The written row is used, the others still open.
      const rows = yield* (yield* EvidenceStore).list({ source: "memory" })
      expect(rows.filter((r) => r.status === "used").map((r) => r.note)).toEqual(["Queued first."])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("the next background capture on an unblocked tier writes the queue first, in order", () =>
    Effect.gen(function* () {
      const root = yield* mine
      yield* configSet("memory.highWaterItems", "2")
      yield* configSet("memory.lowWaterItems", "1")
      for (const text of ["Fact one is unique.", "Fact two is unique.", "Fact three is unique."]) yield* remember({ text, bundle: "mine" })
      expect(yield* captureMemory({ text: "Queued while blocked.", bundle: "mine" })).toMatchObject({ queued: true })
      yield* configSet("memory.highWaterItems", "10")
      const made = yield* captureMemory({ text: "Captured later.", bundle: "mine" })
      expect(made).toMatchObject({ status: "accepted" })
      expect(memoryFiles(root)).toEqual(expect.arrayContaining(["queued-while-blocked.md", "captured-later.md"]))
      expect((yield* memoryStatus()).queued).toBe(0)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a queued capture keeps its tags, title and --expires (counted from the capture) and the written memory carries them", () =>
    Effect.gen(function* () {
      const root = yield* mine
      yield* TestClock.setTime(Date.parse("2026-03-01T12:00:00.000Z"))
      yield* configSet("memory.highWaterItems", "2")
      yield* configSet("memory.lowWaterItems", "1")
      for (const text of ["Fact one is unique.", "Fact two is unique.", "Fact three is unique."]) yield* remember({ text, bundle: "mine" })
      // A bad --expires is refused as remember refuses it, and nothing is queued.
      const bad = yield* Effect.flip(captureMemory({ text: "Never queued.", bundle: "mine", expires: "soonish" }))
      expect(bad).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("--expires") })
      expect((yield* memoryStatus()).queued).toBe(0)
      expect(yield* captureMemory({ text: "The staging window is closed this week.", bundle: "mine", tags: ["staging", " release "], expires: "7d", title: "Staging window" })).toMatchObject({ queued: true })
      const [row] = yield* (yield* EvidenceStore).list({ source: "memory" })
      expect(row!.data).toEqual({ tags: ["staging", "release"], expires: "2026-03-08T12:00:00.000Z", title: "Staging window" })
      // Written three days later: the expiry still counts from the capture.
      yield* TestClock.adjust("3 days")
      yield* configSet("memory.highWaterItems", "10")
      const run = yield* memoryConsolidate({})
      expect(run.intake.written).toEqual([expect.objectContaining({ bundle: "mine" })])
      const file = path.join(root, "memories", `${run.intake.written[0]!.ref!.split("/").pop()}.md`)
      const text = fs.readFileSync(file, "utf8")
      expect(text).toContain("The staging window is closed this week.")
      expect(text).toMatch(/tags:\s*\[?\s*-?\s*staging/)
      expect(text).toContain("release")
      expect(text).toContain("expires: 2026-03-08T12:00:00.000Z")
    }).pipe(Effect.provide(AkmTest)))
})
