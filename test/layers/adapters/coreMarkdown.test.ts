import { describe, expect, it } from "vitest"
import { appendSection, parseMarkdownAst, replaceSectionBody, sections } from "../../../src/layers/adapters/core/MarkdownAst.js"
import { capBytes, CONTENT_CAP_BYTES, isExternalTarget, scanMarkdown } from "../../../src/layers/adapters/core/Markdown.js"

const doc = [
  "# Title",
  "",
  "First [para](a.md) here.",
  "",
  "```js",
  "const secret = 1",
  "```",
  "",
  "## Sub *x*",
  "",
  "[ref][r] ![img](i.png) <b>html</b>",
  "",
  "[r]: ./r.md",
  ""
].join("\n")

describe("core/Markdown.scanMarkdown", () => {
  it("finds headings with slugs and lines, links (inline, reference, images), fences, title and first paragraph", () => {
    const scan = scanMarkdown(doc)
    expect(scan.headings).toEqual([
      { depth: 1, text: "Title", slug: "title", line: 1 },
      { depth: 2, text: "Sub x", slug: "sub-x", line: 9 }
    ])
    expect(scan.links).toEqual([
      { target: "a.md", text: "para", line: 3 },
      { target: "./r.md", text: "ref", line: 11 },
      { target: "i.png", text: "img", line: 11 }
    ])
    expect(scan.fences).toEqual([{ lang: "js", line: 5 }])
    expect(scan.title).toBe("Title")
    expect(scan.firstParagraph).toBe("First para here.")
  })

  it("projects plain text without code, HTML or link targets", () => {
    const { text } = scanMarkdown(doc)
    expect(text).toContain("First para here.")
    expect(text).not.toContain("secret")
    expect(text).not.toContain("a.md")
    expect(text).not.toContain("<b>")
  })

  it("adds the line offset of a body that follows frontmatter", () => {
    expect(scanMarkdown("# H\n", 4).headings[0]?.line).toBe(5)
  })

  it("counts lines inside a paragraph for links after soft breaks", () => {
    expect(scanMarkdown("one\ntwo [x](x.md)\n").links).toEqual([{ target: "x.md", text: "x", line: 2 }])
  })

  it("keeps inline code spans and plain-text runs apart, with their lines; fenced code is neither", () => {
    const scan = scanMarkdown("Run `scripts/a.py` then\nimport @docs/b.md.\n\n```\n`fenced` @no\n```\n\n# Use `x`\n", 2)
    expect(scan.codeSpans).toEqual([{ text: "scripts/a.py", line: 3 }, { text: "x", line: 10 }])
    expect(scan.textRuns).toEqual([{ text: "Run ", line: 3 }, { text: " then", line: 3 }, { text: "import @docs/b.md.", line: 4 }, { text: "Use ", line: 10 }])
  })

  it("lists list items with their line, nesting, section and leading link", () => {
    const scan = scanMarkdown("* [Early](e.md)\n\n# Tables\n\n* [Orders](orders.md) - the orders table\n  * [Nested](n.md)\n* plain text\n\n> * [Quoted](q.md)\n")
    expect(scan.listItems.map((item) => [item.line, item.topLevel, item.section?.text, item.leadingLink])).toEqual([
      [1, true, undefined, { target: "e.md", after: "" }],
      [5, true, "Tables", { target: "orders.md", after: " - the orders table" }],
      [6, false, "Tables", { target: "n.md", after: "" }],
      [7, true, "Tables", undefined],
      [9, false, "Tables", { target: "q.md", after: "" }]
    ])
  })

  it("survives hostile input: 5,000 nested list levels and a 100k-character line", () => {
    const nested = Array.from({ length: 5000 }, (_, i) => `${"  ".repeat(i)}- item`).join("\n")
    expect(() => scanMarkdown(nested)).not.toThrow()
    const long = scanMarkdown("word ".repeat(20_000))
    expect(Buffer.byteLength(long.text)).toBeLessThanOrEqual(CONTENT_CAP_BYTES)
  })
})

describe("core/Markdown helpers", () => {
  it("capBytes cuts at a byte budget without splitting a character", () => {
    expect(capBytes("abc", 10)).toBe("abc")
    expect(capBytes("aé", 2)).toBe("a")
    expect(capBytes("😀😀", 5)).toBe("😀")
  })

  it("isExternalTarget knows URLs, protocol-relative links and anchors", () => {
    expect(["https://x.org", "mailto:a@b", "//cdn/x", "#anchor"].every(isExternalTarget)).toBe(true)
    expect(["a.md", "./a.md", "/root/a.md", "../up.md"].some(isExternalTarget)).toBe(false)
  })
})

describe("core/MarkdownAst (fidelity edits)", () => {
  const text = "---\ntitle: x\n---\n# Guide\n\nintro\n\n## Install  \n\nold *steps*\n\n### Detail\n\nd\n\n## Use\n\nuse it\n"

  it("parses frontmatter as a yaml node and headings as sections with offsets", () => {
    expect(parseMarkdownAst(text).children[0]?.type).toBe("yaml")
    expect(sections(text).map((s) => [s.depth, s.slug, text.slice(s.start, s.end).split("\n")[0]])).toEqual([
      [1, "guide", "# Guide"],
      [2, "install", "## Install  "],
      [3, "detail", "### Detail"],
      [2, "use", "## Use"]
    ])
  })

  it("replaces one section's body and leaves every other byte alone", () => {
    const edited = replaceSectionBody(text, "install", "\nnew steps\n")
    expect(edited).toBe("---\ntitle: x\n---\n# Guide\n\nintro\n\n## Install  \n\nnew steps\n\n## Use\n\nuse it\n")
    expect(replaceSectionBody(text, "missing", "x")).toBeUndefined()
    expect(replaceSectionBody("# A\n\nold\n", "a", "\nnew")).toBe("# A\n\nnew\n")
  })

  it("appends a section after one blank line", () => {
    expect(appendSection("# A\n\ntext\n\n\n", 2, "Log", "entry")).toBe("# A\n\ntext\n\n## Log\n\nentry\n")
    expect(appendSection("", 9, "Top", "x\n")).toBe("###### Top\n\nx\n")
  })
})
