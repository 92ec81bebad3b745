import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  cutPoints,
  findFragment,
  holdsSecrets,
  isMarkdownPath,
  markdownHeadings,
  parseLineRange,
  secretKeyNames,
  secretListing,
  sliceLines
} from "../../src/domain/Show.js"

const doc = [
  "---",
  "title: Guide",
  "# not a heading: frontmatter",
  "---",
  "# Guide",
  "",
  "Intro text.",
  "",
  "## Install `akm`",
  "",
  "```sh",
  "# a shell comment, not a heading",
  "npm i akm",
  "```",
  "",
  "### On **Linux**",
  "Linux steps.",
  "",
  "## Configure [the tool](x.md)",
  "Config steps.",
  "",
  "Setext title",
  "------------",
  "Tail."
].join("\n") + "\n"

describe("markdownHeadings", () => {
  it("finds ATX and setext headings with lines, skipping frontmatter and fenced code, and strips inline marks", () => {
    expect(markdownHeadings(doc).map((h) => [h.depth, h.text, h.slug, h.line])).toEqual([
      [1, "Guide", "guide", 5],
      [2, "Install akm", "install-akm", 9],
      [3, "On Linux", "on-linux", 16],
      [2, "Configure the tool", "configure-the-tool", 19],
      [2, "Setext title", "setext-title", 22]
    ])
  })

  it("handles CRLF, closing hashes and tilde fences", () => {
    expect(markdownHeadings("# A #\r\n~~~\r\n# no\r\n~~~\r\n## B\r\n").map((h) => [h.text, h.line])).toEqual([["A", 1], ["B", 5]])
  })
})

describe("findFragment (R-REF-7)", () => {
  it("selects a section by slug up to the next heading of the same or a higher level", () => {
    const section = Either.getOrThrow(findFragment(doc, "install-akm"))
    expect(section.fromLine).toBe(9)
    expect(section.toLine).toBe(17)
    expect(section.text.startsWith("## Install `akm`")).toBe(true)
    expect(section.text.endsWith("Linux steps.")).toBe(true)
  })

  it("falls back to case-insensitive heading text", () => {
    expect(Either.getOrThrow(findFragment(doc, "on linux")).fromLine).toBe(16)
  })

  it("a miss lists the available slugs", () => {
    expect(findFragment(doc, "nope")).toEqual(Either.left(["guide", "install-akm", "on-linux", "configure-the-tool", "setext-title"]))
  })

  it("the last section runs to the end of the file", () => {
    expect(Either.getOrThrow(findFragment(doc, "setext-title"))).toMatchObject({ fromLine: 22, toLine: 24, text: "Setext title\n------------\nTail." })
  })
})

describe("line ranges", () => {
  it("parses A:B, A:, :B and A; refuses the rest", () => {
    expect(parseLineRange("3:5")).toEqual(Either.right({ from: 3, to: 5 }))
    expect(parseLineRange("3:")).toEqual(Either.right({ from: 3, to: undefined }))
    expect(parseLineRange(":5")).toEqual(Either.right({ from: 1, to: 5 }))
    expect(parseLineRange("7")).toEqual(Either.right({ from: 7, to: 7 }))
    for (const bad of ["", ":", "a:b", "0:3", "5:3", "1:2:3", "-1"]) expect(Either.isLeft(parseLineRange(bad)), bad).toBe(true)
  })

  it("slices inclusive lines, clamps the end, and refuses a start past the end", () => {
    expect(sliceLines("a\nb\nc\n", { from: 2, to: 9 })).toEqual({ text: "b\nc", fromLine: 2, toLine: 3 })
    expect(sliceLines("a\nb\nc", { from: 1, to: 1 })).toEqual({ text: "a", fromLine: 1, toLine: 1 })
    expect(sliceLines("a\nb\n", { from: 3 })).toBeUndefined()
  })
})

describe("cutPoints", () => {
  it("cuts markdown before headings and at every line; other files only at lines", () => {
    const text = "# A\nx\n## B\ny\n"
    expect(cutPoints(text, true)).toEqual({ headings: [6], lines: [4, 6, 11] })
    expect(cutPoints(text, false).headings).toEqual([])
  })

  it("every cut is a line start inside the text", () => {
    fc.assert(fc.property(fc.string(), fc.boolean(), (text, markdown) => {
      const cuts = cutPoints(text, markdown)
      for (const cut of [...cuts.lines, ...cuts.headings]) {
        expect(cut).toBeGreaterThan(0)
        expect(cut).toBeLessThan(text.length)
        expect(text[cut - 1]).toBe("\n")
      }
      expect(cuts.headings.every((cut) => cuts.lines.includes(cut))).toBe(true)
    }))
  })
})

describe("secrets (R-SHOW-2)", () => {
  it("env and secret types, the dotenv adapter and akm's env/ and secrets/ folders hold secrets", () => {
    expect(holdsSecrets({ type: "env", adapter: "okf", conceptId: "x" })).toBe(true)
    expect(holdsSecrets({ type: "Secret", adapter: "okf", conceptId: "x" })).toBe(true)
    expect(holdsSecrets({ type: "knowledge", adapter: "dotenv", conceptId: "x" })).toBe(true)
    expect(holdsSecrets({ type: "knowledge", adapter: "akm", conceptId: "secrets/gh" })).toBe(true)
    expect(holdsSecrets({ type: "knowledge", adapter: "akm", conceptId: "env/prod" })).toBe(true)
    expect(holdsSecrets({ type: "knowledge", adapter: "akm", conceptId: "knowledge/env/setup" })).toBe(false)
    expect(holdsSecrets({ type: "skill", adapter: "agent-skills", conceptId: "env" })).toBe(false)
  })

  it("lists key names from the index, never values", () => {
    const env = { name: "app", type: "env", hints: ["PORT", "a hint with spaces"], extra: { keys: [{ name: "PORT", description: "d" }, { name: "TOKEN" }] } }
    expect(secretKeyNames(env)).toEqual(["PORT", "TOKEN"])
    expect(secretKeyNames({ hints: ["PORT", "not a key"] })).toEqual(["PORT"])
    expect(secretListing(env)).toBe("app: 2 keys (values hidden)\n- PORT\n- TOKEN")
    expect(secretListing({ name: "npm-token", type: "secret" })).toBe("npm-token: value hidden (akm never prints secret values)")
  })

  it("markdown is told by extension", () => {
    expect(["a.md", "b.MARKDOWN", "c.mdx"].every(isMarkdownPath)).toBe(true)
    expect(["a.sh", "b.py", "md"].some(isMarkdownPath)).toBe(false)
  })
})
