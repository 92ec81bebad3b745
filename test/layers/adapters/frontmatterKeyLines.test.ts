import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { frontmatterKeyLines, parseFrontmatter } from "../../../src/layers/adapters/core/Frontmatter.js"

// frontmatterKeyLines skips composing the YAML of a plain block (issue 13 item 3: the bundle rules
// ask it of every item with a broken ref on every write); it must answer exactly as parseFrontmatter.

const repo = join(import.meta.dirname, "..", "..", "..")

const markdownUnder = (dir: string, out: Array<string> = []): Array<string> => {
  if (!existsSync(dir)) return out
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== ".git") markdownUnder(full, out)
    else if (entry.isFile() && entry.name.endsWith(".md") && statSync(full).size < 1_000_000) out.push(full)
  }
  return out
}

const hostile = [
  "---\nxrefs: [a, b]\nxrefs: [c]\n---\n",
  "---\ntitle: \"a\nxrefs: b\"\n---\n",
  "---\ntitle: 'a\nxrefs: b'\n---\n",
  "---\ndescription: |\n  xrefs: inside\nxrefs: [a]\n---\n",
  "---\ndescription: >\n  folded\nsupersededBy: x\n---\n",
  "---\na: b: c\nxrefs: [a]\n---\n",
  "---\na: b\n  xrefs: c\n---\n",
  "---\na: b\n  continued\nxrefs: [x]\n---\n",
  "---\ntrue: 1\nxrefs: [x]\n---\n",
  "---\nNull: 1\nxrefs: [x]\n---\n",
  "---\n1.0: x\nxrefs: [x]\n---\n",
  "---\nxrefs:\n  - a\n  - b\nsupersededBy: c\n---\n",
  "---\nxrefs:\n  - a\n   - b\n---\n",
  "---\nxrefs:\n- a\n- b\n---\n",
  "---\nxrefs:\n  - a: b\n  - a: b\n---\n",
  "---\nxrefs: [a, , b]\n---\n",
  "---\nxrefs: [a, b\nc: d\n---\n",
  "---\nxrefs: &x [a]\nsupersededBy: *x\n---\n",
  "---\nxrefs: !tag [a]\n---\n",
  "---\n# comment\nxrefs: [a] # trailing\n---\n",
  "---\nxrefs:\n# c\n  - a\n---\n",
  "---\nxrefs:\tx\n---\n",
  "---\n\"xrefs\": [a]\n---\n",
  "---\n? xrefs\n: [a]\n---\n",
  "---\nxrefs : [a]\n---\n",
  "---\nxrefs: - a\n---\n",
  "---\nxrefs: [a]\n...\n",
  "---\r\nxrefs: [a]\r\nsupersededBy: b\r\n---\r\n",
  "\ufeff---\nxrefs: [a]\n---\n",
  "---\nxrefs: [a]\n",
  "---\n---\n",
  "no frontmatter\nxrefs: [a]\n",
  "---\nurl: http://example.com/x\nxrefs: [a/b, c.d]\nsupersededBy: memories/x-2\n---\n",
  "---\nname: café ünïcode\nxrefs: [é]\n---\n",
  "---\nname: x\u2028y\nxrefs: [a]\n---\n",
  "---\n- a\n- b\n---\n",
  "---\nscalar\n---\n",
  "---\nxrefs:\n\n  - a\n\n  - b\nz: 1\n---\n",
  "---\ndescription: The staging environment's hosts\nxrefs: [a]\n---\n",
  "---\nname: \"quoted\"\nother: 'single'\nxrefs: [a]\n---\n",
  "---\nname: \"esc\\\"aped\"\nxrefs: [a]\n---\n",
  "---\nname: 'it''s'\nxrefs: [a]\n---\n",
  "---\nname: \"open\nxrefs: [a]\n---\n",
  "---\nname: \"a\" trailing\nxrefs: [a]\n---\n",
  "---\nname: 'a' 'b'\nxrefs: [a]\n---\n",
  "---\nxrefs:\n  - \"a\"\n  - 'b'\n---\n"
]

describe("core/Frontmatter.frontmatterKeyLines", () => {
  it("answers as parseFrontmatter for hostile and edge-case blocks", () => {
    for (const text of hostile) expect(frontmatterKeyLines(text), JSON.stringify(text)).toEqual(parseFrontmatter(text).keyLines)
  })

  it("answers as parseFrontmatter for every markdown file of the fixtures, examples and shared corpora", () => {
    const files = [
      ...markdownUnder(join(repo, "test", "fixtures")),
      ...markdownUnder(join(repo, "examples")),
      ...markdownUnder(join(repo, "..", "..", "shared", "corpora")),
      ...markdownUnder(join(repo, "..", "..", "shared", "bench"))
    ]
    expect(files.length).toBeGreaterThan(50)
    let withKeys = 0
    for (const file of files) {
      const text = readFileSync(file, "utf8")
      const expected = parseFrontmatter(text).keyLines
      expect(frontmatterKeyLines(text), file).toEqual(expected)
      if (Object.keys(expected).length > 0) withKeys++
    }
    expect(withKeys).toBeGreaterThan(10)
  })
})
