import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseFrontmatter } from "../../../src/layers/adapters/core/Frontmatter.js"
import { editFrontmatter, renderWithFrontmatter } from "../../../src/layers/adapters/core/FrontmatterEdit.js"

const source = [
  "---",
  "# leading comment",
  "type: note",
  "title: Old title # why it is called that",
  "x-unknown: {keep: me}",
  "tags:",
  "  - a   # first",
  "  - b",
  "---",
  "",
  "# Body",
  "",
  "text with --- inside",
  ""
].join("\n")

describe("core/FrontmatterEdit.editFrontmatter", () => {
  it("changes one field and keeps comments, unknown keys, key order and the body", () => {
    const edited = editFrontmatter(source, (e) => e.set("title", "New title"))
    expect(edited).toBe(source.replace("title: Old title", "title: New title"))
  })

  it("appends new keys, deletes keys and reads current values", () => {
    let seen: unknown
    const edited = editFrontmatter(source, (e) => {
      seen = [e.get("type"), e.get("tags"), e.get("missing")]
      e.delete("type")
      e.set("status", "draft")
    })
    expect(seen).toEqual(["note", ["a", "b"], undefined])
    const parsed = parseFrontmatter(edited)
    expect(Object.keys(parsed.data ?? {})).toEqual(["title", "x-unknown", "tags", "status"])
    expect(edited).toContain("# leading comment")
    expect(parsed.body).toBe(parseFrontmatter(source).body)
  })

  it("keeps CRLF line endings and a BOM", () => {
    const crlf = `\uFEFF${source.replace(/\n/g, "\r\n")}`
    const edited = editFrontmatter(crlf, (e) => e.set("title", "New"))
    expect(edited.startsWith("\uFEFF---\r\n")).toBe(true)
    expect(edited.replace(/\r\n/g, "")).not.toContain("\n")
    expect(parseFrontmatter(edited).data?.title).toBe("New")
  })

  it("adds a block to a file without frontmatter", () => {
    expect(editFrontmatter("# Note\n", (e) => e.set("type", "knowledge"))).toBe("---\ntype: knowledge\n---\n\n# Note\n")
  })

  it("refuses to edit malformed frontmatter", () => {
    expect(() => editFrontmatter("---\na: [\n---\n", (e) => e.set("a", 1))).toThrow(/malformed/)
  })
})

describe("core/FrontmatterEdit.renderWithFrontmatter", () => {
  it("writes keys in the given order, drops undefined ones and quotes what needs quoting", () => {
    const text = renderWithFrontmatter({ type: "note", title: "A: b", missing: undefined, tags: ["x"] }, "\n\nbody")
    expect(text).toBe("---\ntype: note\ntitle: \"A: b\"\ntags:\n  - x\n---\n\nbody\n")
    expect(parseFrontmatter(text).data).toEqual({ type: "note", title: "A: b", tags: ["x"] })
  })
})

// --- property: source-preserving edit round-trip (spec 10 §3) -------------------------------

const key = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/)
const text = fc.string({ unit: "grapheme", maxLength: 40 })
const scalar = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }).map((lines) => lines.join("\n")))
const value = fc.oneof(scalar, fc.array(fc.oneof(text, fc.integer()), { maxLength: 4 }))
const fields = fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 6 }).map((entries) => Object.fromEntries(entries))
const body = fc.array(fc.string({ unit: "grapheme", maxLength: 30 }).filter((l) => !/[\r\n\u2028\u2029]/.test(l)), { maxLength: 6 }).map((lines) => lines.join("\n"))
const file = fc.record({ fields, body, crlf: fc.boolean(), bom: fc.boolean() }).map(({ fields, body, crlf, bom }) => {
  const lf = renderWithFrontmatter(fields, body)
  return { fields, text: `${bom ? "\uFEFF" : ""}${crlf ? lf.replace(/\n/g, "\r\n") : lf}` }
})

describe("frontmatter edit round-trip (property)", () => {
  it("a rendered file parses back to its fields, and an empty edit changes no byte", () => {
    fc.assert(fc.property(file, ({ fields, text }) => {
      expect(parseFrontmatter(text).data).toEqual(fields)
      expect(editFrontmatter(text, () => {})).toBe(text)
    }))
  })

  it("setting a field changes only that field; setting it back restores the exact bytes", () => {
    fc.assert(fc.property(file, key, scalar, ({ fields, text }, k, v) => {
      const before = parseFrontmatter(text)
      const edited = editFrontmatter(text, (e) => e.set(k, v))
      const after = parseFrontmatter(edited)
      expect(after.data).toEqual({ ...fields, [k]: v })
      expect(Object.keys(after.data ?? {})).toEqual(k in fields ? Object.keys(fields) : [...Object.keys(fields), k])
      expect(after.body).toBe(before.body)
      expect(edited.startsWith("\uFEFF")).toBe(text.startsWith("\uFEFF"))
      expect(/\r\n/.test(edited)).toBe(/\r\n/.test(text))
      if (k in fields) expect(editFrontmatter(edited, (e) => e.set(k, fields[k]))).toBe(text)
      else expect(editFrontmatter(edited, (e) => e.delete(k))).toBe(text)
    }), { numRuns: 300 })
  })
})
