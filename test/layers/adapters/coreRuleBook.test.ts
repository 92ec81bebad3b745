import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { settlePlans } from "../../../src/layers/adapters/core/ItemPlans.js"
import { authoringContextOf, makeRuleBook, refuseErrors, stableJson, type RuleRow } from "../../../src/layers/adapters/core/RuleBook.js"
import { ruleDrivenAdapter } from "../../../src/layers/adapters/core/RuleDrivenAdapter.js"

const rules: ReadonlyArray<RuleRow> = [
  { code: "too-long", severity: "error", limits: { characters: 10 }, terms: ["a", "b"], guidance: "Keep it short." },
  { code: "soft", severity: "warning", strictSeverity: "error", guidance: "Be soft." },
  { code: "invalid-concept-id", severity: "error", guidance: "Use good paths." },
  { code: "duplicate-concept-id", severity: "warning", guidance: "One file per id." }
]
const book = makeRuleBook(rules)
const identity = { id: "demo", version: "1", writable: true, description: "a demo" }
const parts = { preamble: "  Write demos.  ", examples: ["ex"], allowedPaths: ["*.md"], constraints: ["no"] }

describe("core/RuleBook", () => {
  it("reports through the table: the row's severity, nothing for a code the table lacks", () => {
    expect(book.report("soft", "a.md", "m", { line: 3, ref: "b//a" })).toEqual([{ code: "soft", severity: "warning", path: "a.md", message: "m", line: 3, ref: "b//a" }])
    expect(book.report("absent", "a.md", "m")).toEqual([])
    expect([book.has("soft"), book.has("absent")]).toEqual([true, false])
    expect([book.limit("too-long", "characters"), book.limit("soft", "characters")]).toEqual([10, undefined])
    expect([book.terms("too-long"), book.terms("soft")]).toEqual([["a", "b"], []])
  })

  it("renders one instruction line per row with code, severity, strict severity, limits and terms", () => {
    expect(book.instructions.split("\n").slice(0, 2)).toEqual([
      "- `too-long` (error): Keep it short. (at most 10 characters; terms: `a`, `b`)",
      "- `soft` (warning; error under --strict): Be soft."
    ])
  })

  it("the authoring context's instructions and ruleHash follow the table; guidance files count in the hash", () => {
    const context = authoringContextOf(identity, book, parts)
    expect(context.instructions).toBe(`Write demos.\n\nRules (code, severity, what to do):\n${book.instructions}\n`)
    expect(context).toMatchObject({ adapter: "demo", ruleSetVersion: "1", guidance: [], examples: ["ex"], allowedPaths: ["*.md"], constraints: ["no"] })
    expect(authoringContextOf(identity, makeRuleBook([...rules]), parts).ruleHash).toBe(context.ruleHash)
    expect(authoringContextOf(identity, makeRuleBook(rules.slice(1)), parts).ruleHash).not.toBe(context.ruleHash)
    const guided = authoringContextOf(identity, book, { ...parts, guidance: [{ path: "schema.md", text: "be kind" }] })
    expect(guided.guidance).toEqual([{ path: "schema.md", hash: expect.stringMatching(/^[0-9a-f]{64}$/), text: "be kind" }])
    expect(guided.ruleHash).not.toBe(context.ruleHash)
  })

  it("stableJson sorts keys at every depth", () => {
    expect(stableJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } })).toBe("{\"a\":{\"c\":2,\"d\":[{\"y\":2,\"z\":1}]},\"b\":1}")
  })

  it("refuses authored text with an error, hinting with the first failing row's guidance", () => {
    expect(Either.isRight(Effect.runSync(Effect.either(refuseErrors("file", book.report("soft", "a", "m"), book))))).toBe(true)
    const refused = Effect.runSync(Effect.flip(refuseErrors("file", [...book.report("too-long", "a", "42 characters")], book)))
    expect(refused).toMatchObject({ reason: "the new file would not be valid: 42 characters (too-long)", hint: "Keep it short." })
  })
})

describe("core/ItemPlans.settlePlans", () => {
  it("keeps one item per concept id (lowest rank, then path), reports the rest and ids that cannot be refs, sorted by id", () => {
    const settled = settlePlans([
      { conceptId: "b", files: ["b.yaml"], rank: 1 },
      { conceptId: "b", files: ["b.yml"], rank: 0 },
      { conceptId: "a#x", files: ["a#x.md"] },
      { conceptId: "a", files: ["a.md"], kind: "note" }
    ], book)
    expect(settled.items).toEqual([{ conceptId: "a", files: ["a.md"], kind: "note" }, { conceptId: "b", files: ["b.yml"] }])
    expect(settled.diagnostics.map((d) => [d.code, d.path])).toEqual([["invalid-concept-id", "a#x.md"], ["duplicate-concept-id", "b.yaml"]])
  })
})

describe("core/RuleDrivenAdapter", () => {
  it("builds an adapter whose parts read the table and whose authoring context comes from it", () => {
    const adapter = ruleDrivenAdapter(identity, rules, (b) => ({
      probe: () => Effect.succeed(false),
      plan: () => ({ items: [], diagnostics: b.report("soft", ".", "planned") }),
      project: () => Effect.succeed({ projection: { name: "x" }, diagnostics: [] }),
      authoring: (_bundle, target) => Effect.succeed({ ...parts, allowedPaths: [target] })
    }))
    expect(adapter).toMatchObject({ ...identity, rules })
    expect(adapter.plan([], { name: "b", root: "/", writable: true }).diagnostics.map((d) => d.code)).toEqual(["soft"])
    const context = Effect.runSync(adapter.authoringContext!({ name: "b", root: "/", writable: true }, "notes/*.md", "create"))
    expect(context).toEqual(authoringContextOf(identity, book, { ...parts, allowedPaths: ["notes/*.md"] }))
    const fixed = ruleDrivenAdapter(identity, rules, () => ({ probe: () => Effect.succeed(false), plan: () => ({ items: [], diagnostics: [] }), project: () => Effect.die("unused"), authoring: parts }))
    expect(Effect.runSync(fixed.authoringContext!({ name: "b", root: "/", writable: true }, "", "create"))).toEqual(authoringContextOf(identity, book, parts))
    const silent = ruleDrivenAdapter(identity, rules, () => ({ probe: () => Effect.succeed(false), plan: () => ({ items: [], diagnostics: [] }), project: () => Effect.die("unused") }))
    expect(silent.authoringContext).toBeUndefined()
  })
})
