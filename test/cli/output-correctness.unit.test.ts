import { describe, expect, it } from "vitest"
import { findSection, githubSlug, githubSlugs, headingSlug } from "../../src/domain/Ref.js"
import { dropTrailingHeadings, markdownHeadings } from "../../src/domain/Show.js"
import { normalizeTag, uniqueTags } from "../../src/domain/Tag.js"
import { bundleStatus, type Attention } from "../../src/programs/health.js"

// Issue 15 item 5 at the level of the pure functions behind it (the CLI side: output-correctness.test.ts).

describe("heading anchors (R-REF-7, GitHub slugs)", () => {
  it("lowercase; punctuation other than - and _ removed; each space a -; letters of any script kept", () => {
    expect(githubSlug("2. Extract nested page_location …")).toBe("2-extract-nested-page_location-")
    expect(githubSlug("What's new? (v2.0)")).toBe("whats-new-v20")
    expect(githubSlug("Foo – Bar")).toBe("foo--bar")
    expect(githubSlug("Ünïcode Straße")).toBe("ünïcode-straße")
    expect(githubSlug("हिन्दी शीर्षक")).toBe("हिन्दी-शीर्षक")
    expect(githubSlug("日本語の見出し")).toBe("日本語の見出し")
    expect(githubSlug("a_b-c d")).toBe("a_b-c-d")
  })

  it("repeats get -1, -2, skipping anchors already taken", () => {
    expect(githubSlugs(["Setup", "Setup", "Setup"])).toEqual(["setup", "setup-1", "setup-2"])
    expect(githubSlugs(["a", "a-1", "a"])).toEqual(["a", "a-1", "a-2"])
  })

  it("headingSlug (identifiers, the older anchor form) is unchanged", () => {
    expect(headingSlug("2. Extract page_location")).toBe("2-extract-page-location")
  })

  it("a fragment finds its section by anchor, then by the older slug, then by text; a repeat by its -1", () => {
    const text = "# T\n\n## page_location\n\nA\n\n## Setup\n\nB\n\n## Setup\n\nC\n"
    const headings = markdownHeadings(text)
    expect(headings.map((h) => [h.text, h.slug])).toEqual([["T", "t"], ["page_location", "page_location"], ["Setup", "setup"], ["Setup", "setup-1"]])
    expect(findSection(headings, "page_location")?.line).toBe(3)
    expect(findSection(headings, "page-location")?.line).toBe(3)
    expect(findSection(headings, "PAGE_LOCATION")?.line).toBe(3)
    expect(findSection(headings, "setup-1")?.line).toBe(11)
    expect(findSection(headings, "setup")?.line).toBe(7)
    expect(findSection(headings, "")).toBeUndefined()
    // Headings without stored anchors (lint's outlines) are given them in order.
    expect(findSection([{ text: "Setup", depth: 2, line: 1 }, { text: "Setup", depth: 2, line: 5 }], "setup-1")?.line).toBe(5)
  })

  it("underscores inside words are text, not emphasis; real emphasis marks still go", () => {
    const headings = markdownHeadings("## page_location and event_name\n\n## _emphasis_ and __strong__ and *star*\n\n## `code_span` [link_text](x.md)\n")
    expect(headings.map((h) => h.text)).toEqual(["page_location and event_name", "emphasis and strong and star", "code_span link_text"])
  })
})

describe("tags", () => {
  it("are kept as written, one per normal form, and compared in the normal form", () => {
    expect(uniqueTags(["headline-metric", "Headline Metric", "web_analytics"])).toEqual(["headline-metric", "web_analytics"])
    expect(normalizeTag("headline-metric")).toBe(normalizeTag("Headline_Metric"))
    expect(normalizeTag("  a -_ b  ")).toBe("a b")
    expect(uniqueTags(["two\nlines", "  spaced   out "])).toEqual(["spaced out", "two lines"])
  })
})

describe("show --max-tokens: no trailing empty heading", () => {
  it("drops headings with nothing after them, one after another", () => {
    expect(dropTrailingHeadings("# T\n\nIntro.\n\n## A\n\n### B\n\n")).toBe("# T\n\nIntro.")
    expect(dropTrailingHeadings("# T\n\nIntro.\n\nSetext\n------\n")).toBe("# T\n\nIntro.")
    expect(dropTrailingHeadings("# T\n\nIntro.\n")).toBe("# T\n\nIntro.")
    expect(dropTrailingHeadings("# Only\n")).toBe("")
    expect(dropTrailingHeadings("```\n# not a heading\n```\n")).toBe("```\n# not a heading\n```")
  })
})

describe("akm health: one source of truth for a bundle's status", () => {
  const attention = (code: Attention["code"], bundle?: string): Attention => ({ code, ...(bundle === undefined ? {} : { bundle }), message: "m", hint: "h" })

  it("is what the attention list says about the bundle, most urgent first, else ok", () => {
    expect(bundleStatus("a", [], "2026-01-01T00:00:00Z")).toEqual(["ok"])
    expect(bundleStatus("a", [attention("diagnostics", "a"), attention("stale", "a"), attention("stale", "b")], "2026-01-01T00:00:00Z")).toEqual(["stale", "errors"])
    expect(bundleStatus("a", [attention("memory-pressure", "a")], "2026-01-01T00:00:00Z")).toEqual(["memory pressure"])
    expect(bundleStatus("a", [attention("bundle-name", "a")], "2026-01-01T00:00:00Z")).toEqual(["name"])
    // An empty index names no bundle: its never-indexed bundles are "not indexed".
    expect(bundleStatus("a", [attention("index-missing")], null)).toEqual(["not indexed"])
    expect(bundleStatus("a", [attention("orphaned", "gone")], "2026-01-01T00:00:00Z")).toEqual(["ok"])
  })
})
