import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, TestClock, type Layer } from "effect"
import { redact, redactFields, trustedText, type Redacted } from "../../src/domain/Redaction.js"
import { StateStore } from "../../src/services/StateStore.js"

/**
 * R-ARCH-5: every StateStore layer passes this suite. The layer is shared by
 * all cases, so each case uses subjects of its own.
 */
let subjectCounter = 0
const freshName = (label: string): Redacted => trustedText(`${label}-${++subjectCounter}`)
const fields = (data: Record<string, unknown>) => redactFields(data, (text) => redact(text))

export const stateStoreContract = (name: string, layer: Layer.Layer<StateStore, unknown>) =>
  layer_(layer)(`StateStore contract: ${name}`, (it) => {
    it.effect("init reports the applied migrations and a clean integrity check, and is idempotent", () =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const status = yield* store.init
        expect(status.migrations.length).toBeGreaterThan(0)
        expect(status.migrations[0]).toMatch(/^0001_/)
        expect(status.integrity).toBe("ok")
        expect(yield* store.init).toEqual(status)
      }))

    it.effect("an event's time comes from Clock (here the TestClock)", () =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const subject = freshName("clock")
        yield* TestClock.setTime(Date.parse("2031-02-03T04:05:06.007Z"))
        yield* store.appendEvent("clock.tick", subject)
        expect((yield* store.events({ subject }))[0]!.at).toBe("2031-02-03T04:05:06.007Z")
      }))

    it.effect("appendEvent returns increasing cursors", () =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const subject = freshName("cursor")
        const cursors = yield* Effect.forEach(["a", "b", "c"], (kind) => store.appendEvent(kind, subject))
        expect(cursors[1]!).toBeGreaterThan(cursors[0]!)
        expect(cursors[2]!).toBeGreaterThan(cursors[1]!)
      }))

    it.effect("events pages after a cursor, oldest first, filtered by subject and limited", () =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const subject = freshName("notes")
        const other = freshName("team")
        const c1 = yield* store.appendEvent("bundle.added", subject, fields({ items: 3 }))
        const c2 = yield* store.appendEvent("bundle.indexed", subject, fields({ items: 4, tags: ["x"] }))
        yield* store.appendEvent("bundle.added", other)
        const c3 = yield* store.appendEvent("bundle.updated", subject)

        const after = yield* store.events({ after: c1, subject })
        expect(after.map((event) => [event.id, event.kind, event.subject])).toEqual([
          [c2, "bundle.indexed", subject],
          [c3, "bundle.updated", subject]
        ])
        expect(after[0]!.data).toEqual({ items: 4, tags: ["x"] })
        expect(after[1]!.data).toBeUndefined()
        expect(Number.isNaN(Date.parse(after[0]!.at))).toBe(false)

        expect((yield* store.events({ after: c1, subject, limit: 1 })).map((event) => event.id)).toEqual([c2])
        expect((yield* store.events({ after: c3, subject }))).toEqual([])
        const all = yield* store.events({ after: c1 - 1, limit: 1000 })
        expect(all.map((event) => event.subject)).toEqual([subject, subject, other, subject])
        expect(all[0]!.data).toEqual({ items: 3 })
      }))

    it.effect("renameBundle rewrites the bundle and its refs but not a bundle that merely starts with its name", () =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const from = freshName("old")
        const to = freshName("new")
        const start = yield* store.appendEvent("marker", freshName("marker"))
        yield* store.appendEvent("bundle.added", from)
        yield* store.appendEvent("item.used", trustedText(`${from}//x/y`))
        yield* store.appendEvent("item.used", trustedText(`${from}er//x`))
        yield* store.appendEvent("item.used", trustedText(`${from}/x`))

        yield* store.renameBundle(from, to)

        const subjects = (yield* store.events({ after: start })).map((event) => event.subject)
        expect(subjects).toEqual([to, `${to}//x/y`, `${from}er//x`, `${from}/x`])
      }))

    it.effect("renameBundle handles names outside the basic multilingual plane", () =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const from = freshName("🙂notes")
        const to = freshName("日記")
        const start = yield* store.appendEvent("marker", freshName("marker"))
        yield* store.appendEvent("item.used", trustedText(`${from}//𝄞/a`))
        yield* store.appendEvent("bundle.added", from)

        yield* store.renameBundle(from, to)

        const subjects = (yield* store.events({ after: start })).map((event) => event.subject)
        expect(subjects).toEqual([`${to}//𝄞/a`, to])
      }))
  })
