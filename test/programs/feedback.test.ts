import { afterAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import { utilityFactor } from "../../src/domain/Ranking.js"
import { IndexStoreSqlite } from "../../src/layers/sqlite/IndexStoreSqlite.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { bundleRemove } from "../../src/programs/bundle/remove.js"
import { feedback, parseTags } from "../../src/programs/feedback.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { search } from "../../src/programs/search.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { StateStore } from "../../src/services/StateStore.js"
import { UsageLog } from "../../src/services/UsageLog.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { indexedWorkspace, notesFiles, removeFolders, skillsFiles } from "../support/indexedWorkspace.js"

afterAll(removeFolders)

const failure = <A, E>(exit: Exit.Exit<A, E>) => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = Cause.failureOption(exit.cause)
  if (error._tag === "None") throw new Error(Cause.pretty(exit.cause))
  return error.value as { _tag: string; message: string; hint: string }
}

/** The utility search sees: index.db's ranking feature, no state.db involved. */
const indexedUtility = (ref: string) =>
  Effect.map(Effect.flatMap(IndexStore, (index) => index.items([ref], { belief: "all", includeProposed: true })), (items) => items[0]?.utility?.value)

describe("feedback (spec 04 §6)", () => {
  it.effect("negative feedback needs a reason; with one it is a row, an event, and a lower utility copied into index.db", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      const refused = failure(yield* Effect.exit(feedback({ ref: "notes//guide", polarity: "negative" })))
      expect(refused._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(feedback({ ref: "notes//guide", polarity: "negative", reason: "   " })))._tag).toBe("UsageError")
      const result = yield* feedback({ ref: "guide", polarity: "negative", reason: "step 3 is outdated", tags: ["area=deploy", "task = release "] })
      expect(result).toMatchObject({ ref: "notes//guide", polarity: "negative", reason: "step 3 is outdated", tags: { area: "deploy", task: "release" }, source: "user" })
      expect(result.utility).toBe(0.25)
      expect(yield* indexedUtility("notes//guide")).toBe(0.25)
      const rows = yield* (yield* UsageLog).feedback({ ref: "notes//guide" })
      expect(rows.map((r) => [r.id, r.reason])).toEqual([[result.id, "step 3 is outdated"]])
      const events = yield* (yield* StateStore).events({ subject: "notes//guide" })
      expect(events.map((e) => [e.kind, e.data])).toEqual([["feedback", { polarity: "negative", reason: "step 3 is outdated", tags: { area: "deploy", task: "release" }, source: "user" }]])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("positive feedback raises utility; agent feedback is recorded but teaches nothing", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles })
      expect((yield* feedback({ ref: "notes//runbook", polarity: "positive" })).utility).toBe(0.75)
      expect(yield* indexedUtility("notes//runbook")).toBe(0.75)
      const agent = yield* feedback({ ref: "notes//guide", polarity: "positive", source: "agent" })
      expect(agent.utility).toBeNull()
      expect(yield* indexedUtility("notes//guide")).toBeUndefined()
    }).pipe(Effect.provide(AkmTest)))

  it.effect("feedback on a skill's file counts for the skill; unknown refs and bad tags fail", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ skills: skillsFiles })
      expect((yield* feedback({ ref: "skills//pdf/scripts/fill.py", polarity: "positive" })).ref).toBe("skills//pdf")
      expect(failure(yield* Effect.exit(feedback({ ref: "skills//nope", polarity: "positive" })))._tag).toBe("RefNotFound")
      expect(failure(yield* Effect.exit(feedback({ ref: "skills//pdf", polarity: "positive", tags: ["novalue"] })))._tag).toBe("UsageError")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("learned state survives `akm index --full` and a bundle removed and added again (R-FB-1)", () =>
    Effect.gen(function* () {
      const roots = yield* indexedWorkspace({ notes: notesFiles })
      yield* feedback({ ref: "notes//guide", polarity: "positive" })
      yield* feedback({ ref: "notes//guide", polarity: "positive" })
      const learned = (yield* (yield* UsageLog).utility("notes//guide"))!
      expect(learned).toBe(0.875)
      yield* indexBundles({ full: true })
      expect(yield* indexedUtility("notes//guide")).toBe(learned)
      yield* bundleRemove("notes")
      expect(yield* indexedUtility("notes//guide")).toBeUndefined()
      yield* bundleAdd({ source: roots.notes!, name: "notes", cwd: os.tmpdir(), home: os.tmpdir() })
      yield* indexBundles({})
      expect(yield* indexedUtility("notes//guide")).toBe(learned)
      expect((yield* (yield* UsageLog).feedback({ ref: "notes//guide" })).length).toBe(2)
    }).pipe(Effect.provide(AkmTest)))
})

describe("utility decay across an index.db rebuild (R-FB-1, spec 04 §6)", () => {
  /** The workspace's real index.db file, opened for `effect` and closed after, so it can be deleted in between. */
  const onDisk = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, IndexStoreSqlite)
  const DAY_MS = 24 * 60 * 60 * 1000

  it.effect("counts from the feedback, not from the rebuild", () =>
    Effect.gen(function* () {
      const t = Date.parse("2025-03-01T09:00:00.000Z")
      yield* TestClock.setTime(t)
      const query = { query: "team notes restart service", track: false } // answered in part: the score stays under the clamp at 1, so the utility factor shows
      const before = yield* onDisk(Effect.gen(function* () {
        yield* indexedWorkspace({ notes: notesFiles })
        const base = (yield* search(query)).hits.find((h) => h.ref === "notes//runbook")!
        expect((yield* feedback({ ref: "notes//runbook", polarity: "positive" })).utility).toBe(0.75)
        return base
      }))
      yield* TestClock.adjust(90 * DAY_MS)
      const indexDb = (yield* WorkspaceConfig).paths.indexDb
      for (const file of [indexDb, `${indexDb}-wal`, `${indexDb}-shm`]) fs.rmSync(file, { force: true })
      expect(fs.existsSync(indexDb)).toBe(false)

      const { hit, item } = yield* onDisk(Effect.gen(function* () {
        // Search on a never-built index.db builds it first (R-WS-2): a full rebuild from nothing.
        const hit = (yield* search(query)).hits.find((h) => h.ref === "notes//runbook")!
        const [item] = yield* (yield* IndexStore).items(["notes//runbook"], { belief: "all", includeProposed: true })
        return { hit, item }
      }))
      expect(item?.utility).toEqual({ value: 0.75, at: new Date(t).toISOString() })
      // Same items, same query: the score moved by the utility factor alone, three half-lives old (not fresh).
      expect(hit.why).toContain("utility:+")
      expect(hit.score).toBeCloseTo(before.score * utilityFactor({ value: 0.75, ageMs: 90 * DAY_MS }), 2)
      expect(hit.score).not.toBeCloseTo(before.score * utilityFactor({ value: 0.75, ageMs: 0 }), 2)
    }).pipe(Effect.provide(AkmTest)))
})

describe("parseTags", () => {
  it("reads key=value pairs, trims, and lets the last value of a key win", () => {
    expect(parseTags(["a=1", " b = two words ", "a=3", "c="])).toEqual({ a: "3", b: "two words", c: "" })
    expect(parseTags(["=x"])).toMatchObject({ _tag: "UsageError" })
  })
})
