import fc from "fast-check"
import { Document, type YAMLMap, type YAMLSeq } from "yaml"
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

  it("keeps an edited value's style: flow collections stay flow, quoted-by-choice strings stay quoted", () => {
    const styled = "---\ntags: [a, b] # why\nby: { name: x, at: y }\nwhen: '2026-01-01'\nid: \"07\"\n---\nBody\n"
    expect(editFrontmatter(styled, (e) => e.set("tags", ["a", "b", "c"]))).toBe(styled.replace("tags: [a, b] # why", "tags: [a, b, c] # why"))
    expect(editFrontmatter(styled, (e) => e.set("by", { name: "z", at: "y" }))).toBe(styled.replace("{ name: x, at: y }", "{ name: z, at: y }"))
    expect(editFrontmatter(styled, (e) => e.set("when", "2026-02-02"))).toBe(styled.replace("'2026-01-01'", "'2026-02-02'"))
    // "07" is quoted because it must be, not by choice: the new value is written as a new file would write it.
    expect(editFrontmatter(styled, (e) => e.set("id", "x7"))).toBe(styled.replace("\"07\"", "x7"))
    // A flow collection set to a scalar, or a value too long for one line, becomes a plain value or block lines.
    expect(editFrontmatter(styled, (e) => e.set("tags", "none"))).toBe(styled.replace("tags: [a, b] # why\n", "tags: none\n"))
  })

  it("writes block lists in the block's own indentation, for changed and new keys", () => {
    const flush = "---\ntags:\n- a\nmeta:\n  owner: x\n---\n"
    expect(editFrontmatter(flush, (e) => e.set("tags", ["a", "b"]))).toBe("---\ntags:\n- a\n- b\nmeta:\n  owner: x\n---\n")
    expect(editFrontmatter(flush, (e) => e.set("more", { list: ["z"] }))).toBe("---\ntags:\n- a\nmeta:\n  owner: x\nmore:\n  list:\n  - z\n---\n")
    const indented = "---\ntags:\n  - a\n---\n"
    expect(editFrontmatter(indented, (e) => e.set("tags", ["a", "b"]))).toBe("---\ntags:\n  - a\n  - b\n---\n")
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

  it("in a file written with flow collections, setting a collection and setting it back restores the exact bytes", () => {
    const flowFile = fc.uniqueArray(fc.tuple(key, fc.array(fc.oneof(text, fc.integer()), { minLength: 1, maxLength: 4 })), { selector: ([k]) => k, minLength: 1, maxLength: 4 })
      .map((entries) => {
        const doc = new Document(Object.fromEntries(entries))
        for (const pair of (doc.contents as YAMLMap).items) (pair.value as YAMLSeq).flow = true
        return { fields: Object.fromEntries(entries), text: `---\n${doc.toString({ lineWidth: 0 })}---\nBody\n` }
      })
    fc.assert(fc.property(flowFile, fc.nat(), fc.array(text, { minLength: 1, maxLength: 3 }), ({ fields, text }, pick, next) => {
      const k = Object.keys(fields)[pick % Object.keys(fields).length]!
      const edited = editFrontmatter(text, (e) => e.set(k, next))
      expect(parseFrontmatter(edited).data).toEqual({ ...fields, [k]: next })
      expect(editFrontmatter(edited, (e) => e.set(k, fields[k]))).toBe(text)
    }), { numRuns: 300 })
  })
})
