import { describe, expect, it } from "vitest"
import { conflictLines, mergeText } from "../../src/domain/Merge.js"

const labels = { ours: "proposal", base: "base", theirs: "current" }

describe("three-way text merge (proposal refresh)", () => {
  it("takes both sides' edits when they touch different lines", () => {
    expect(mergeText("a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", labels)).toEqual({ text: "A\nb\nc\nd\nE\n", conflicts: 0 })
  })

  it("takes one side when the other did not move, and either when both agree", () => {
    expect(mergeText("x\n", "y\n", "x\n", labels)).toEqual({ text: "y\n", conflicts: 0 })
    expect(mergeText("x\n", "x\n", "z\n", labels)).toEqual({ text: "z\n", conflicts: 0 })
    expect(mergeText("x\n", "same\n", "same\n", labels)).toEqual({ text: "same\n", conflicts: 0 })
  })

  it("writes overlapping edits with diff3 markers, each on its own line even without a final newline", () => {
    const merged = mergeText("a\nb\nc\n", "a\nours\nc\n", "a\ntheirs\nc\n", labels)
    expect(merged).toEqual({ text: "a\n<<<<<<< proposal\nours\n||||||| base\nb\n=======\ntheirs\n>>>>>>> current\nc\n", conflicts: 1 })
    expect(conflictLines(merged.text)).toEqual([2])
    expect(mergeText("a\nb", "a\nours", "a\ntheirs", labels).text).toBe("a\n<<<<<<< proposal\nours\n||||||| base\nb\n=======\ntheirs\n>>>>>>> current\n")
  })

  it("merges two creations from an empty base as one conflict unless they agree", () => {
    expect(mergeText("", "new\n", "other\n", labels).conflicts).toBe(1)
  })
})
