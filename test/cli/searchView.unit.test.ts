import { describe, expect, it } from "vitest"
import { renderResult, styleFor } from "../../src/cli/render.js"
import { outputWidth, searchView, truncationNote, type SearchOptions } from "../../src/cli/searchCommon.js"
import type { SearchHit, SearchResult } from "../../src/domain/Search.js"

// The text and md views of `akm search` (issue 15 items 6, 7): widths, marks, notes.

const options: SearchOptions = { query: ["docker"], bundle: [], type: [], adapter: [], belief: "current", includeProposed: false, filter: undefined, limit: undefined, noTrack: false }

const hit = (ref: string, name: string, snippet: string): SearchHit => ({
  ref, type: "skill", name, description: null, bundle: "b", score: 0.5, tokens: 1, tokensEstimated: true, path: `/x/${ref}.md`, editable: true, why: [], next: `akm show ${ref}`, snippet
})

const result: SearchResult = {
  query: "docker",
  hits: [hit("b//a", "A title about Docker that is quite long indeed, longer than eighty columns surely", "Run docker compose up; docker ps shows it.")],
  total: 1,
  stale: [],
  timingMs: 1
}

// eslint-disable-next-line no-control-regex
const strip = (s: string) => s.replace(/\u001b\[\d+m/g, "")

describe("search text view", () => {
  it("on a terminal marks the query's terms in the snippet (bold yellow) and keeps lines within the width", () => {
    const out = renderResult("text", result, searchView(options, 80), styleFor(true, {}))
    expect(out).toContain("\u001b[1m\u001b[33mdocker\u001b[0m\u001b[0m compose")
    for (const line of strip(out).split("\n")) expect([...line].length).toBeLessThanOrEqual(80)
    expect(strip(out).split("\n")[0]).toMatch(/^b\/\/a {2}0\.500 {2}A title about Docker .*…$/)
  })

  it("piped or with NO_COLOR it is plain", () => {
    expect(renderResult("text", result, searchView(options, 80), styleFor(true, { NO_COLOR: "1" }))).not.toContain("\u001b")
    expect(renderResult("text", result, searchView(options, 80), styleFor(false, {}))).toContain("  Run docker compose up; docker ps shows it.\n")
  })

  it("the width is the terminal's, else COLUMNS, else 100 (at least 40)", () => {
    expect(outputWidth({ isTTY: true, columns: 132 }, { COLUMNS: "90" })).toBe(132)
    expect(outputWidth({ isTTY: false, columns: 132 }, { COLUMNS: "90" })).toBe(90)
    expect(outputWidth({ isTTY: false }, {})).toBe(100)
    expect(outputWidth({ isTTY: false }, { COLUMNS: "abc" })).toBe(100)
    expect(outputWidth({ isTTY: false }, { COLUMNS: "5" })).toBe(40)
  })

  it("a truncated query gets one note on stderr in text output only, not with -q", () => {
    const truncated = { ...result, queryTruncated: { kept: 64, dropped: 936 } }
    const plain = styleFor(false, {})
    expect(truncationNote(truncated, "text", false, plain)).toBe("note: the query has 1000 distinct terms; searched for the first 64\n")
    expect(truncationNote(truncated, "json", false, plain)).toBeUndefined()
    expect(truncationNote(truncated, "text", true, plain)).toBeUndefined()
    expect(truncationNote(result, "text", false, plain)).toBeUndefined()
  })

  it("an empty result quotes a long query cut, and names the filters", () => {
    const empty = { ...result, query: "word ".repeat(100), hits: [] }
    const out = renderResult("text", empty, searchView({ ...options, type: ["skill"], bundle: ["b"], belief: "all", filter: { project: "x" } }, 80), styleFor(false, {}))
    expect(out.split("\n")[0]).toMatch(/^no matches for "word word .*…" with --type skill --bundle b --belief all --filter project=x$/)
  })
})

describe("search md view", () => {
  it("escapes markdown in titles and snippets, and bolds the terms", () => {
    const md = renderResult("md", { ...result, hits: [hit("b//a", "A [weird] *title*", "use `docker` <here>")] }, searchView(options, 80), styleFor(false, {}))
    expect(md).toContain("1. [A \\[weird\\] \\*title\\*](</x/b//a.md>) — `b//a` · 0.500\n   > use \\`**docker**\\` \\<here\\>\n")
  })
})
