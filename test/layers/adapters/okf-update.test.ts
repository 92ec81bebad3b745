import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import fc from "fast-check"
import { Document, visit } from "yaml"
import { describe, expect, it } from "vitest"
import { parseFrontmatter } from "../../../src/layers/adapters/core/Frontmatter.js"
import { renderWithFrontmatter } from "../../../src/layers/adapters/core/FrontmatterEdit.js"
import { updateConcept, type ConceptChanges } from "../../../src/layers/adapters/okf/index.js"

const fixture = (path: string) => readFileSync(fileURLToPath(new URL(`../../fixtures/adapters/okf/${path}`, import.meta.url)), "utf8")

const update = (text: string, changes: ConceptChanges): string => Either.getOrThrow(updateConcept(text, changes))

/** The changed stretch of lines: where it starts, what was there, what is there now. */
const diff = (before: string, after: string) => {
  const a = before.split("\n")
  const b = after.split("\n")
  let prefix = 0
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++
  let suffix = 0
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++
  return { line: prefix + 1, removed: a.slice(prefix, a.length - suffix), added: b.slice(prefix, b.length - suffix) }
}

describe("updateConcept: golden round trips (source-preserving, spec 03 okf)", () => {
  const api = fixture("services/checkout-api.md")
  const gateway = fixture("services/payments-gateway.md")

  it("editing one field changes only that line, flow mappings and comments included", () => {
    expect(diff(api, update(api, { title: "Checkout API v2" }))).toEqual({ line: 3, removed: ["title: Checkout API"], added: ["title: Checkout API v2"] })
    expect(diff(api, update(api, { status: "deprecated" }))).toEqual({ line: 12, removed: ["status: stable"], added: ["status: deprecated"] })
  })

  it("keeps block lists at column zero and quoted timestamps untouched around an edit", () => {
    expect(diff(gateway, update(gateway, { description: "Authorises, captures and refunds card payments." }))).toEqual({
      line: 4,
      removed: ["description: Internal service that authorises and captures card payments."],
      added: ["description: Authorises, captures and refunds card payments."]
    })
  })

  it("a changed collection keeps its style: block lists their indentation, flow collections stay on their line", () => {
    expect(diff(gateway, update(gateway, { tags: ["payments", "pci", "refunds"] }))).toEqual({ line: 8, removed: [], added: ["- refunds"] })
    expect(diff(gateway, update(gateway, { sources: [{ id: "pci-notes", title: "PCI scoping notes" }, { id: "audit" }] }))).toEqual({ line: 16, removed: [], added: ["  - id: audit"] })
    expect(diff(api, update(api, { generated: { by: "akm/0.3.0", at: "2026-06-01T00:00:00Z" } }))).toEqual({
      line: 8,
      removed: ["generated: { by: reference_agent/gemini-2.5-pro, at: 2026-05-02T10:15:00Z }"],
      added: ["generated: { by: akm/0.3.0, at: 2026-06-01T00:00:00Z }"]
    })
    expect(diff(api, update(api, { tags: ["checkout", "orders"] }))).toEqual({ line: 6, removed: ["tags: [checkout, orders, public-api]"], added: ["tags: [checkout, orders]"] })
    // A new block list follows the block's own list indentation.
    expect(diff(gateway, update(gateway, { aliases: ["psp"] }))).toEqual({ line: 16, removed: [], added: ["aliases:", "- psp"] })
  })

  it("a scalar quoted by choice stays quoted, with its trailing comment; one quoted by need follows the new value", () => {
    const quoted = "---\ntype: X\nat: '2026-01-01T00:00:00Z' # when\nid: \"07\"\n---\n"
    const edited = update(quoted, { at: "2026-02-02T00:00:00Z" })
    expect(diff(quoted, edited)).toEqual({ line: 3, removed: ["at: '2026-01-01T00:00:00Z' # when"], added: ["at: '2026-02-02T00:00:00Z' # when"] })
    expect(parseFrontmatter(edited).data).toEqual({ type: "X", at: "2026-02-02T00:00:00Z", id: "07" })
    // "07" must be quoted to stay a string; "x7" need not be.
    expect(diff(quoted, update(quoted, { id: "x7" }))).toEqual({ line: 4, removed: ["id: \"07\""], added: ["id: x7"] })
  })

  it("a multi-line plain scalar is replaced as a whole, its neighbours untouched", () => {
    const wrapped = "---\ntype: Reference\ndescription: Google Analytics 4 event-level daily sharded export tables containing\n  user interaction logs.\ntags:\n- ga4\n---\nBody\n"
    expect(diff(wrapped, update(wrapped, { description: "Daily GA4 export tables." }))).toEqual({
      line: 3,
      removed: ["description: Google Analytics 4 event-level daily sharded export tables containing", "  user interaction logs."],
      added: ["description: Daily GA4 export tables."]
    })
  })

  it("adds new keys at the end of the block and removes deleted keys' lines only", () => {
    expect(diff(api, update(api, { reviewer: "human:ana" }))).toEqual({ line: 23, removed: [], added: ["reviewer: human:ana"] })
    expect(diff(api, update(api, { verified: undefined }))).toEqual({
      line: 9,
      removed: ["verified:", "  - { by: human:mlopez, at: 2026-05-02T16:00:00Z }", "  - { by: process:contract-tests, at: 2026-05-03T02:00:00Z }"],
      added: []
    })
    expect(diff(api, update(api, { owner: undefined }))).toEqual({ line: 7, removed: ["owner: team:storefront"], added: [] })
  })

  it("an unchanged value leaves the file byte-identical", () => {
    expect(update(api, { title: "Checkout API", tags: ["checkout", "orders", "public-api"] })).toBe(api)
  })

  it("keeps CRLF line endings and a BOM", () => {
    const text = "\uFEFF---\r\ntype: X\r\ntitle: Old\r\n---\r\nBody\r\n"
    expect(update(text, { title: "New" })).toBe("\uFEFF---\r\ntype: X\r\ntitle: New\r\n---\r\nBody\r\n")
  })

  it("gives a file without frontmatter a block", () => {
    expect(parseFrontmatter(update("# Note\n", { type: "Reference" })).data).toEqual({ type: "Reference" })
  })

  it("refuses akm keys, an empty type and malformed frontmatter", () => {
    expect(Either.isLeft(updateConcept(api, { "akm:id": "x" }))).toBe(true)
    expect(Either.isLeft(updateConcept(api, { type: " " }))).toBe(true)
    expect(Either.isLeft(updateConcept("---\ntitle: [oops\n---\n", { title: "x" }))).toBe(true)
  })
})

// Keys and values that stress YAML: reserved words, numbers as text, colons, quotes, hashes, unicode, newlines.
const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/).filter((k) => k !== "akm" && k !== "type")
const text = fc.oneof(
  fc.constantFrom("true", "null", "1.5", "- a", "a: b", "#x", "'q'", "\"dq\"", "x # y", "Ünïcødé", "multi\nline", " padded ", "", "2026-01-01T00:00:00Z"),
  fc.string({ maxLength: 12 })
)
const value = fc.oneof(text, fc.integer(), fc.boolean(), fc.array(text, { maxLength: 3 }), fc.record({ by: text, at: text }))

/** The same fields written with flow collections (`tags: [a, b]`, `generated: { by, at }`), as OKF producers often do. */
const flowStyled = (fields: Record<string, unknown>): string => {
  const doc = new Document(fields)
  visit(doc, { Map: (key, node) => void (key !== null && (node.flow = true)), Seq: (_key, node) => void (node.flow = true) })
  return `---\n${doc.toString({ lineWidth: 0 })}---\n# Body\n\nText.\n`
}

describe("updateConcept: property (spec 10 §3, frontmatter source-preserving edit round-trip)", () => {
  it("re-parsing gives the new value and every other key unchanged, in the same order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(key, value), { minLength: 1, maxLength: 6, selector: ([k]) => k }),
        fc.boolean(),
        fc.nat(),
        value,
        fc.constantFrom(false, true),
        (entries, flow, pick, newValue, addNew) => {
          const fields = Object.fromEntries([["type", "Reference"], ...entries])
          const original = flow ? flowStyled(fields) : renderWithFrontmatter(fields, "# Body\n\nText.\n")
          const target = addNew ? "zz_new" : entries[pick % entries.length]![0]
          const edited = update(original, { [target]: newValue })
          const before = parseFrontmatter(original)
          const after = parseFrontmatter(edited)
          expect(after.error).toBeUndefined()
          expect(after.data![target]).toEqual(newValue)
          const expectedKeys = Object.keys(before.data!).includes(target) ? Object.keys(before.data!) : [...Object.keys(before.data!), target]
          expect(Object.keys(after.data!)).toEqual(expectedKeys)
          for (const k of Object.keys(before.data!)) if (k !== target) expect(after.data![k]).toEqual(before.data![k])
          expect(after.body).toBe(before.body)
        }
      ),
      { numRuns: 300 }
    )
  })
})
