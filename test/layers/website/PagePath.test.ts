import { describe, expect, it } from "vitest"
import { MAX_PAGE_DIRS, MAX_PAGE_PATH_BYTES, PagePaths, pagePath } from "../../../src/layers/materializers/website/PagePath.js"

// 10-quality-bars §3: a hostile site cannot make its snapshot a pathologically deep or long tree.

const dirsOf = (p: string) => p.split("/").length - 1

describe("snapshot page paths are capped in depth and length", () => {
  it("ordinary paths are kept as the site spells them", () => {
    expect(pagePath("https://example.test/guide/start")).toBe("guide/start.md")
    expect(pagePath(`https://example.test/${"a/".repeat(MAX_PAGE_DIRS)}page`)).toBe(`${"a/".repeat(MAX_PAGE_DIRS)}page.md`)
  })

  it("a page 2,000 directories deep keeps 16 of them and a hashed name", () => {
    const url = `https://example.test/${"d/".repeat(2000)}page`
    const p = pagePath(url)
    expect(dirsOf(p)).toBe(MAX_PAGE_DIRS)
    expect(p).toMatch(new RegExp(`^(d/){${MAX_PAGE_DIRS}}page-[0-9a-f]{8}\\.md$`))
    // Two deep pages that share the kept directories stay apart.
    expect(pagePath(`https://example.test/${"d/".repeat(1999)}e/page`)).not.toBe(p)
  })

  it("a path of long segments stays under the byte cap, multibyte letters included", () => {
    for (const segment of ["x".repeat(80), "ü".repeat(80), "語".repeat(80)]) {
      const p = pagePath(`https://example.test/${`${segment}/`.repeat(12)}${segment}?q=1`)
      expect(Buffer.byteLength(p)).toBeLessThanOrEqual(MAX_PAGE_PATH_BYTES)
      expect(p.endsWith(".md")).toBe(true)
    }
  })

  it("PagePaths hands out distinct capped paths", () => {
    const paths = new PagePaths()
    const taken = Array.from({ length: 50 }, (_, i) => paths.take(`https://example.test/${"d/".repeat(100 + i)}page`))
    expect(new Set(taken).size).toBe(50)
    for (const p of taken) expect(dirsOf(p)).toBeLessThanOrEqual(MAX_PAGE_DIRS)
  })
})
