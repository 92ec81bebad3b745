import { describe, expect, it } from "vitest"
import { makeProjection, metadataHints, nameFromFile, normalizeTag, uniqueSorted, uniqueTags } from "../../../src/layers/adapters/core/Projection.js"

describe("core/Projection", () => {
  it("normalises tags: NFC, lowercase, - and _ as spaces, collapsed whitespace", () => {
    expect(normalizeTag("  HTTP_Caching--Rules ")).toBe("http caching rules")
    expect(normalizeTag("Cafe\u0301")).toBe("caf\u00e9")
  })

  it("uniqueTags keeps the written form, one per normal form (the first), ordered by normal form", () => {
    expect(uniqueTags(["Web_Perf", "headline-metric", " ", "web perf", "Headline Metric", "alpha"])).toEqual(["alpha", "headline-metric", "Web_Perf"])
  })

  it("uniqueSorted drops empties and duplicates", () => {
    expect(uniqueSorted(["b", "", "a", "b"])).toEqual(["a", "b"])
  })

  it("metadataHints flattens scalars, lists and maps in key order, three levels deep", () => {
    const data = { a: "one", b: [1, true, { c: "two" }], deep: { l1: { l2: { l3: { l4: "too deep" } } } }, skip: "not asked" }
    expect(metadataHints(data, ["a", "b", "deep", "missing"])).toEqual(["one", "1", "true", "two"])
    expect(metadataHints(undefined, ["a"])).toEqual([])
  })

  it("makeProjection folds aliases into tags (as written), outline into hints and leaves empty fields out", () => {
    const projection = makeProjection({
      type: "note",
      name: "HTTP caching",
      description: "",
      tags: ["Web_Perf", "http"],
      aliases: ["HTTP-Cache"],
      hints: ["extra", " "],
      outline: [{ depth: 2, text: "Validation", slug: "validation" }],
      content: "",
      links: ["b.md", "a.md", "b.md"]
    }, { status: "draft" })
    expect(projection).toEqual({
      type: "note",
      name: "HTTP caching",
      tags: ["http", "HTTP-Cache", "Web_Perf"],
      aliases: ["HTTP-Cache"],
      hints: ["extra", "Validation"],
      links: ["a.md", "b.md"],
      outline: [{ depth: 2, text: "Validation", slug: "validation" }],
      status: "draft"
    })
    expect(makeProjection({ name: "bare" })).toEqual({ name: "bare" })
  })

  it("makeProjection is deterministic (R-AD-2)", () => {
    const parts = { name: "x", tags: ["b", "a"], links: ["z", "y"] }
    expect(makeProjection(parts)).toEqual(makeProjection(parts))
  })

  it("nameFromFile turns a path into a readable name", () => {
    expect(nameFromFile("notes/retries-and_backoff.md")).toBe("retries and backoff")
    expect(nameFromFile("skills/pdf")).toBe("pdf")
    expect(nameFromFile(".env")).toBe(".env")
  })
})
