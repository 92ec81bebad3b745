import { describe, expect, it } from "vitest"
import { Effect, Either, type Scope } from "effect"
import type { Crontab } from "../../src/services/Crontab.js"

/** A fresh, empty scheduler table, and a way to change it as another program would. */
export interface CrontabFixture {
  readonly crontab: Crontab["Type"]
  /** Another writer (`crontab -e`, an editor): sets the whole text behind akm's back. */
  readonly otherWriter: (text: string) => void
}

const run = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>): Promise<A> => Effect.runPromise(Effect.scoped(effect))

/**
 * R-ARCH-5: every Crontab layer passes this suite (spec 07 §3): an empty
 * table reads "", a replace is byte-exact, and a table changed since it was
 * read is never overwritten.
 */
export const crontabContract = (name: string, fixture: Effect.Effect<CrontabFixture, unknown, Scope.Scope>) =>
  describe(`Crontab contract: ${name}`, () => {
    it("a table that does not exist yet reads as empty, and is created by the first write", () =>
      run(Effect.gen(function* () {
        const { crontab } = yield* fixture
        expect(yield* crontab.read).toBe("")
        yield* crontab.replace("", "@daily true\n")
        expect(yield* crontab.read).toBe("@daily true\n")
        expect(yield* crontab.where).not.toBe("")
      })))

    it("replace writes the text byte for byte (no trailing newline added, CRLF and UTF-8 kept)", () =>
      run(Effect.gen(function* () {
        const { crontab, otherWriter } = yield* fixture
        const text = "MAILTO=\"ops@example.test\"\r\n# café ☕\n0 1 * * * echo 'x %y'\n5 5 * * * tail"
        otherWriter(text)
        expect(yield* crontab.read).toBe(text)
        const next = `${text}\n# more\n`
        yield* crontab.replace(text, next)
        expect(yield* crontab.read).toBe(next)
      })))

    it("a table changed by another writer since it was read is not overwritten", () =>
      run(Effect.gen(function* () {
        const { crontab, otherWriter } = yield* fixture
        otherWriter("0 1 * * * mine\n")
        const seen = yield* crontab.read
        otherWriter("0 1 * * * mine\n0 2 * * * theirs\n")
        const result = yield* Effect.either(crontab.replace(seen, `${seen}@daily akm\n`))
        expect(Either.isLeft(result) && result.left._tag).toBe("CrontabChanged")
        expect(yield* crontab.read).toBe("0 1 * * * mine\n0 2 * * * theirs\n")
      })))

    it("replacing with an empty text leaves an empty table", () =>
      run(Effect.gen(function* () {
        const { crontab, otherWriter } = yield* fixture
        otherWriter("@daily true\n")
        yield* crontab.replace("@daily true\n", "")
        expect(yield* crontab.read).toBe("")
      })))
  })
