import { describe, expect, it } from "vitest"
import { normalizeText, parseFrontmatter, stringField, stringListField } from "../../../src/layers/adapters/core/Frontmatter.js"

describe("core/Frontmatter.parseFrontmatter", () => {
  it("returns the text as body when there is no block", () => {
    expect(parseFrontmatter("# Title\n\nbody\n")).toEqual({ present: false, data: undefined, body: "# Title\n\nbody\n", bodyLine: 1, keyLines: {} })
  })

  it("parses the mapping, the body, the body's line and each key's line", () => {
    const parsed = parseFrontmatter("---\ntype: note\ntags: [a, b]\n\ndescription: >\n  folded\n---\n# Body\n")
    expect(parsed).toEqual({
      present: true,
      data: { type: "note", tags: ["a", "b"], description: "folded\n" },
      body: "# Body\n",
      bodyLine: 8,
      keyLines: { type: 2, tags: 3, description: 5 }
    })
  })

  it("drops a BOM and normalises CRLF so lines match the editor's", () => {
    const parsed = parseFrontmatter("\uFEFF---\r\ntitle: x\r\n---\r\nline one\r\nline two\r\n")
    expect(parsed.data).toEqual({ title: "x" })
    expect(parsed.body).toBe("line one\nline two\n")
    expect(parsed.bodyLine).toBe(4)
    expect(normalizeText("\uFEFFa\r\nb\rc")).toBe("a\nb\nc")
  })

  it("accepts `...` as the closing line and an empty block", () => {
    expect(parseFrontmatter("---\na: 1\n...\nbody").data).toEqual({ a: 1 })
    expect(parseFrontmatter("---\n---\nbody")).toMatchObject({ present: true, data: {}, body: "body" })
  })

  it("reports an unterminated block on line 1 and keeps the rest as body", () => {
    expect(parseFrontmatter("---\ntitle: x\nno end")).toMatchObject({
      present: true,
      data: undefined,
      body: "title: x\nno end",
      error: { line: 1, message: "the frontmatter block is not closed with ---" }
    })
  })

  it("reports malformed YAML with the file's line number and keeps the body", () => {
    const parsed = parseFrontmatter("---\ntitle: x\nbad: [\n---\nbody")
    expect(parsed.data).toBeUndefined()
    expect(parsed.body).toBe("body")
    expect(parsed.error?.line).toBe(3)
  })

  it("refuses duplicate keys, non-mappings and alias bombs without throwing", () => {
    expect(parseFrontmatter("---\na: 1\na: 2\n---\n").error?.line).toBe(3)
    expect(parseFrontmatter("---\n- a\n- b\n---\n").error?.message).toMatch(/mapping/)
    expect(parseFrontmatter("---\njust text\n---\n").error).toBeDefined()
    const row = (name: string, of: string) => `${name}: &${name} [${Array(9).fill(`*${of}`).join(", ")}]`
    const bomb = ["---", "a: &a [x, x, x, x, x, x, x, x, x]", row("b", "a"), row("c", "b"), row("d", "c"), `e: [${Array(9).fill("*d").join(", ")}]`, "---", ""].join("\n")
    expect(parseFrontmatter(bomb).error?.message).toMatch(/alias/i)
  })

  it("does not treat a later --- line as an opening block", () => {
    expect(parseFrontmatter("text\n---\na: 1\n---\n").present).toBe(false)
  })
})

describe("core/Frontmatter fields", () => {
  const data = { s: "  padded ", empty: " ", n: 3, b: false, d: new Date("2024-01-02T03:04:05Z"), list: ["a", 2, " ", { x: 1 }], csv: "a, b,,c", obj: { k: 1 } }

  it("stringField trims strings and stringifies scalars", () => {
    expect(stringField(data, "s")).toBe("padded")
    expect(stringField(data, "empty")).toBeUndefined()
    expect(stringField(data, "n")).toBe("3")
    expect(stringField(data, "b")).toBe("false")
    expect(stringField(data, "d")).toBe("2024-01-02T03:04:05.000Z")
    expect(stringField(data, "obj")).toBeUndefined()
    expect(stringField(undefined, "s")).toBeUndefined()
  })

  it("stringListField reads YAML lists and comma-separated strings", () => {
    expect(stringListField(data, "list")).toEqual(["a", "2"])
    expect(stringListField(data, "csv")).toEqual(["a", "b", "c"])
    expect(stringListField(data, "obj")).toEqual([])
    expect(stringListField(data, "missing")).toEqual([])
  })
})
