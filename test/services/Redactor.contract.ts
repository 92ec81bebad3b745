import { expect, layer as layer_ } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { Redactor } from "../../src/services/Redactor.js"

/**
 * R-ARCH-5: every Redactor layer passes this suite (spec 08 §2.1). The layer
 * is shared by all cases, so each case stores under sources of its own and
 * plants values no other case uses.
 */
let counter = 0
const fresh = (label: string): string => `${label}-${++counter}`

export const redactorContract = (name: string, layer: Layer.Layer<Redactor, unknown>) =>
  layer_(layer)(`Redactor contract: ${name}`, (it) => {
    it.effect("patterns are redacted with no value stored; clean text comes back unchanged", () =>
      Effect.gen(function* () {
        const redactor = yield* Redactor
        expect(yield* redactor.redact("Authorization: Bearer fake-token.0123456789.abcdef")).toBe("Authorization: Bearer [redacted:bearer]")
        expect(yield* redactor.redact("commit 3f786850e387550fdab836ed7e6dc881de23001b at 2026-12-01T14:02:48Z")).toBe("commit 3f786850e387550fdab836ed7e6dc881de23001b at 2026-12-01T14:02:48Z")
      }))

    it.effect("a stored value becomes [redacted:env] in any text, through redact, redactCapped and a snapshot taken after the store", () =>
      Effect.gen(function* () {
        const redactor = yield* Redactor
        const value = `${fresh("storedValue")}-Xy7`
        expect(yield* redactor.storeValues(fresh("src"), [value, value, "tiny"])).toBe(1)
        expect(yield* redactor.redact(`a ${value} b`)).toBe("a [redacted:env] b")
        expect(yield* redactor.redactCapped(`${value}${"z".repeat(5000)}`, 100)).toMatch(/^\[redacted:env\]z+$/)
        expect((yield* redactor.redactCapped(`${value}${"z".repeat(5000)}`, 100)).length).toBe(100)
        const sync = yield* redactor.snapshot
        expect(sync(`x${value}x`)).toBe("x[redacted:env]x")
      }))

    it.effect("storing a source again replaces its values; retainSources forgets the others", () =>
      Effect.gen(function* () {
        const redactor = yield* Redactor
        const [a, b] = [fresh("srcA"), fresh("srcB")]
        const [old, next, other] = [fresh("oldValue0"), fresh("nextValue0"), fresh("otherValue0")]
        yield* redactor.storeValues(a, [old])
        yield* redactor.storeValues(b, [other])
        yield* redactor.storeValues(a, [next])
        expect(yield* redactor.redact(`${old} ${next} ${other}`)).toBe(`${old} [redacted:env] [redacted:env]`)
        yield* redactor.retainSources([a])
        expect(yield* redactor.redact(`${next} ${other}`)).toBe(`[redacted:env] ${other}`)
      }))
  })
