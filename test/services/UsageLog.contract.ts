import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, TestClock, type Layer } from "effect"
import { trustedText } from "../../src/domain/Redaction.js"
import { utilityOf, UTILITY_HALF_LIFE_MS, UTILITY_PRIOR } from "../../src/domain/Utility.js"
import { UsageLog } from "../../src/services/UsageLog.js"

/**
 * R-ARCH-5: every UsageLog layer passes this suite. The layer is shared by
 * all cases (on the TestClock), so each case uses bundles of its own.
 */
let counter = 0
const freshBundle = (label: string): string => `${label}${++counter}`

export const usageLogContract = (name: string, layer: Layer.Layer<UsageLog, unknown>) =>
  layer_(layer)(`UsageLog contract: ${name}`, (it) => {
    it.effect("a read soon after a search that returned the item by the same source is a select, else a show", () =>
      Effect.gen(function* () {
        const usage = yield* UsageLog
        const b = freshBundle("sel")
        yield* usage.recordSearch(trustedText("pdf forms"), [`${b}//pdf`, `${b}//csv`], "user")
        expect(yield* usage.recordShow(`${b}//csv`, "user")).toBe("select")
        expect(yield* usage.recordShow(`${b}//other`, "user")).toBe("show")
        expect(yield* usage.recordShow(`${b}//pdf`, "agent")).toBe("show")
        yield* TestClock.adjust("31 minutes")
        expect(yield* usage.recordShow(`${b}//pdf`, "user")).toBe("show")
      }))

    it.effect("queriesReturning: the distinct queries of searches that returned a ref, newest first (improve's holdouts)", () =>
      Effect.gen(function* () {
        const usage = yield* UsageLog
        const b = freshBundle("past")
        yield* usage.recordSearch(trustedText("rollback a deploy"), [`${b}//a`, `${b}//b`], "user")
        yield* usage.recordSearch(trustedText("undo release"), [`${b}//b`], "user")
        yield* usage.recordSearch(trustedText("rollback a deploy"), [`${b}//a`], "agent")
        yield* usage.recordSearch(trustedText("revert build"), [`${b}//a`], "user")
        expect(yield* usage.queriesReturning(`${b}//a`, 5)).toEqual(["revert build", "rollback a deploy"])
        expect(yield* usage.queriesReturning(`${b}//a`, 1)).toEqual(["revert build"])
        expect(yield* usage.queriesReturning(`${b}//zzz`, 5)).toEqual([])
      }))

    it.effect("events come back newest first, filtered by ref and kind, with the search's query and refs", () =>
      Effect.gen(function* () {
        const usage = yield* UsageLog
        const b = freshBundle("ev")
        yield* usage.recordSearch(trustedText(`${b} query`), [`${b}//a`, `${b}//b`], "agent")
        yield* usage.recordShow(`${b}//a`, "agent")
        yield* usage.recordShow(`${b}//c`, "audit")
        const forA = yield* usage.events({ ref: `${b}//a` })
        expect(forA.map((e) => [e.kind, e.ref, e.source])).toEqual([["select", `${b}//a`, "agent"]])
        const searches = yield* usage.events({ kind: "search", limit: 1 })
        expect(searches).toHaveLength(1)
        expect(searches[0]).toMatchObject({ kind: "search", query: `${b} query`, refs: [`${b}//a`, `${b}//b`], source: "agent" })
        expect(searches[0]!.ref).toBeUndefined()
        const all = yield* usage.events({ limit: 3 })
        expect(all.map((e) => e.ref ?? e.kind)).toEqual([`${b}//c`, `${b}//a`, "search"])
        expect(all[0]!.id).toBeGreaterThan(all[1]!.id)
      }))

    it.effect("feedback rows keep polarity, reason, tags and source, newest first", () =>
      Effect.gen(function* () {
        const usage = yield* UsageLog
        const ref = `${freshBundle("fb")}//guide`
        const first = yield* usage.recordFeedback({ ref, polarity: "negative", reason: trustedText("outdated steps"), tags: { area: trustedText("auth") }, source: "user" })
        expect(first).toMatchObject({ ref, polarity: "negative", reason: trustedText("outdated steps"), tags: { area: trustedText("auth") }, source: "user" })
        expect(Number.isNaN(Date.parse(first.at))).toBe(false)
        const second = yield* usage.recordFeedback({ ref, polarity: "positive", source: "agent" })
        expect(second.id).toBeGreaterThan(first.id)
        expect(second.reason).toBeUndefined()
        expect(second.tags).toBeUndefined()
        expect(yield* usage.feedback({ ref })).toEqual([second, first])
        expect(yield* usage.feedback({ ref, limit: 1 })).toEqual([second])
      }))

    it.effect("utility is learned from user outcomes only, bounded in [0, 1], and equals the replay of the history", () =>
      Effect.gen(function* () {
        const usage = yield* UsageLog
        const b = freshBundle("ut")
        const good = `${b}//good`
        const bad = `${b}//bad`
        const agentOnly = `${b}//agent-only`
        for (let i = 0; i < 30; i++) yield* usage.recordFeedback({ ref: good, polarity: "positive", source: "user" })
        const t0 = yield* TestClockTime
        yield* usage.recordFeedback({ ref: bad, polarity: "negative", reason: trustedText("wrong"), source: "user" })
        yield* TestClock.adjust("1 second")
        yield* usage.recordShow(bad, "user")
        yield* usage.recordFeedback({ ref: agentOnly, polarity: "negative", reason: trustedText("x"), source: "agent" })
        yield* usage.recordShow(agentOnly, "agent")

        const goodValue = (yield* usage.utility(good))!
        expect(goodValue).toBeGreaterThan(0.99)
        expect(goodValue).toBeLessThanOrEqual(1)
        expect(yield* usage.utility(bad)).toBeCloseTo(utilityOf([{ kind: "negative", atMs: t0 }, { kind: "show", atMs: t0 + 1000 }])!, 12)
        expect(yield* usage.utility(bad)).toBeLessThan(UTILITY_PRIOR)
        expect(yield* usage.utility(agentOnly)).toBeUndefined()
        const all = yield* usage.utilities
        expect(all.get(good)?.value).toBe(goodValue)
        expect(all.has(agentOnly)).toBe(false)
      }))

    it.effect("utilities carry each ref's time of its last user outcome, not the time they are read (R-FB-1)", () =>
      Effect.gen(function* () {
        const usage = yield* UsageLog
        const b = freshBundle("uat")
        const voted = `${b}//voted`
        const read = `${b}//read`
        const tVoted = yield* TestClockTime
        yield* usage.recordFeedback({ ref: voted, polarity: "positive", source: "user" })
        yield* TestClock.adjust("2 days")
        const tRead = yield* TestClockTime
        yield* usage.recordShow(read, "user")
        yield* TestClock.adjust("3 days")
        // Agents teach nothing, so they do not move the time either.
        yield* usage.recordFeedback({ ref: voted, polarity: "negative", reason: trustedText("x"), source: "agent" })
        yield* usage.recordShow(read, "agent")
        yield* TestClock.adjust("90 days")
        const all = yield* usage.utilities
        expect(all.get(voted)).toEqual({ value: (yield* usage.utility(voted))!, at: new Date(tVoted).toISOString() })
        expect(all.get(read)).toEqual({ value: (yield* usage.utility(read))!, at: new Date(tRead).toISOString() })
        // The next user outcome moves it.
        yield* usage.recordFeedback({ ref: voted, polarity: "positive", source: "user" })
        expect((yield* usage.utilities).get(voted)?.at).toBe(new Date(yield* TestClockTime).toISOString())
      }))

    it.effect("older evidence decays toward the prior", () =>
      Effect.gen(function* () {
        const usage = yield* UsageLog
        const ref = `${freshBundle("decay")}//x`
        const start = yield* TestClockTime
        yield* usage.recordFeedback({ ref, polarity: "positive", source: "user" })
        yield* TestClock.adjust(UTILITY_HALF_LIFE_MS)
        yield* usage.recordShow(ref, "user")
        expect(yield* usage.utility(ref)).toBeCloseTo(
          utilityOf([{ kind: "positive", atMs: start }, { kind: "show", atMs: start + UTILITY_HALF_LIFE_MS }])!,
          12
        )
        // Half of the positive vote's lift is gone before the show adds its own.
        expect(yield* usage.utility(ref)).toBeLessThan(0.7)
      }))

    it.effect("renameBundle rekeys usage, feedback, utility and search results of that bundle only", () =>
      Effect.gen(function* () {
        const usage = yield* UsageLog
        const from = freshBundle("old")
        const to = freshBundle("new")
        const lookalike = `${from}x`
        yield* usage.recordSearch(trustedText("q"), [`${from}//a`, `${lookalike}//a`], "user")
        yield* usage.recordShow(`${from}//a`, "user")
        yield* usage.recordFeedback({ ref: `${from}//a`, polarity: "positive", source: "user" })
        yield* usage.recordFeedback({ ref: `${lookalike}//a`, polarity: "positive", source: "user" })
        const before = yield* usage.utility(`${from}//a`)
        const learnedAt = (yield* usage.utilities).get(`${from}//a`)?.at
        yield* TestClock.adjust("1 day")
        yield* usage.renameBundle(from, to)
        expect((yield* usage.utilities).get(`${to}//a`)?.at).toBe(learnedAt)
        expect(yield* usage.utility(`${from}//a`)).toBeUndefined()
        expect(yield* usage.utility(`${to}//a`)).toBe(before)
        expect(yield* usage.utility(`${lookalike}//a`)).toBeDefined()
        expect((yield* usage.feedback({ ref: `${to}//a` })).length).toBe(1)
        expect((yield* usage.events({ ref: `${to}//a` })).map((e) => e.kind)).toEqual(["select"])
        const [search] = yield* usage.events({ kind: "search", limit: 1 })
        expect(search!.refs).toEqual([`${to}//a`, `${lookalike}//a`])
      }))
  })

const TestClockTime = Effect.map(TestClock.currentTimeMillis, (ms) => ms)
