import { execFileSync } from "node:child_process"
import fc from "fast-check"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { isNewBundleName, suggestBundleName, validateBundleName, validateNewBundleName } from "../../src/domain/Ref.js"
import { shellCommand, shellQuote } from "../../src/domain/ShellQuote.js"

describe("shellQuote", () => {
  it("leaves plain words bare and single-quotes the rest", () => {
    expect(shellQuote("notes")).toBe("notes")
    expect(shellQuote("notes//guide")).toBe("notes//guide")
    expect(shellQuote("y$(id)")).toBe("'y$(id)'")
    expect(shellQuote("it's")).toBe("'it'\\''s'")
    expect(shellQuote("")).toBe("''")
    expect(shellCommand("akm index --bundle", "a b")).toBe("akm index --bundle 'a b'")
  })

  it("a POSIX shell reads every quoted word back as exactly that word and runs nothing", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "'", '"', "$", "(", ")", "`", ";", "|", "&", " ", "\\", "\n", "*", "!", "é", "-") }), (word) => {
        expect(execFileSync("sh", ["-c", `printf %s ${shellQuote(word)}`], { encoding: "utf8" })).toBe(word)
      }),
      { numRuns: 60 }
    )
  })
})

describe("new bundle names (spec 01 §5)", () => {
  it.each(["notes", "team-kb", "agent_skills", "a", "0day", "x".repeat(63)])("accepts %j", (name) => {
    expect(isNewBundleName(name)).toBe(true)
    expect(Either.getOrThrow(validateNewBundleName(name))).toBe(name)
  })

  it.each([
    ["Notes", "notes"], ["team kb", "team-kb"], ["y$(id)", "y-id"], ["-x", "x"], ["_x", "x"], ["Café.Notes", "cafe-notes"],
    ["日本語", "bundle"], ["x".repeat(64), "x".repeat(63)], ["", "bundle"]
  ])("refuses %j and suggests %j", (name, suggestion) => {
    const refused = validateNewBundleName(name)
    expect(Either.isLeft(refused)).toBe(true)
    if (Either.isLeft(refused)) expect(refused.left.hint).toContain(`try '${suggestion}'`)
    expect(suggestBundleName(name)).toBe(suggestion)
  })

  it("a suggestion always follows the rule", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (name) => isNewBundleName(suggestBundleName(name))))
  })

  it("an older name outside the rule still loads", () => {
    expect(Either.isRight(validateBundleName("Notes_Old"))).toBe(true)
    expect(Either.isRight(validateBundleName("y$(id)"))).toBe(true)
  })
})
