import { describe, expect, it } from "vitest"
import { linkPath, markdownFileOf, resolveLink, resolveLinkPath } from "../../../src/layers/adapters/core/Links.js"
import { basenameOf, dirnameOf, isOccupied, resolveInside, withoutMarkdownExtension } from "../../../src/layers/adapters/core/Paths.js"
import { contextFromTree } from "../../support/adapterHarness.js"

describe("core/Links", () => {
  it("resolves targets from the linking file's folder, or from the root with a leading slash", () => {
    expect(resolveLink("a/b/c.md", "../d.md#top")).toEqual({ kind: "path", path: "a/d.md", directory: false })
    expect(resolveLink("a/b/c.md", "/x/y.md?v=1")).toEqual({ kind: "path", path: "x/y.md", directory: false })
    expect(resolveLink("c.md", "./guides/")).toEqual({ kind: "path", path: "guides", directory: true })
    expect(resolveLink("a/c.md", "../../up.md")).toEqual({ kind: "outside" })
    expect(resolveLink("c.md", "https://x.org/a.md")).toEqual({ kind: "external" })
    expect(resolveLink("c.md", "#section")).toEqual({ kind: "external" })
    expect(resolveLink("c.md", "?only=query")).toEqual({ kind: "external" })
  })

  it("decodes percent-escapes to NFC and keeps a malformed escape as written", () => {
    expect(linkPath("caf%C3%A9%20menu.md#x")).toBe("café menu.md")
    expect(linkPath("cafe\u0301.md")).toBe("café.md")
    expect(linkPath("100%.md")).toBe("100%.md")
  })

  it("names the bundle path or markdown file a link points at", () => {
    expect(resolveLinkPath("a/c.md", "d/")).toBe("a/d")
    expect(resolveLinkPath("a/c.md", "..")).toBeUndefined()
    expect(resolveLinkPath("a/c.md", "mailto:x@y")).toBeUndefined()
    expect(markdownFileOf(resolveLink("a/c.md", "d.md"))).toBe("a/d.md")
    expect(markdownFileOf(resolveLink("a/c.md", "d.md/"))).toBeUndefined()
    expect(markdownFileOf(resolveLink("a/c.md", "pic.png"))).toBeUndefined()
    expect(markdownFileOf(resolveLink("a/c.md", ".md"))).toBeUndefined()
  })
})

describe("core/Paths", () => {
  it("splits, folds and strips bundle-relative paths", () => {
    expect([dirnameOf("a/b/c.md"), dirnameOf("c.md"), basenameOf("a/b/c.md")]).toEqual(["a/b", "", "c.md"])
    expect(resolveInside("skills/pdf", "./scripts/../refs/a.md")).toBe("skills/pdf/refs/a.md")
    expect(resolveInside("", "../a")).toBeUndefined()
    expect(resolveInside("a", "..")).toBeUndefined()
    expect(withoutMarkdownExtension("a/B.MD")).toBe("a/B")
  })

  it("a path is occupied by a file or by a directory that holds files", () => {
    const ctx = contextFromTree({ "a/b.md": "x", "c": "y" })
    expect([isOccupied(ctx, "a"), isOccupied(ctx, "a/b.md"), isOccupied(ctx, "c"), isOccupied(ctx, "a/b")]).toEqual([true, true, true, false])
  })
})
