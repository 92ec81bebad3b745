import { Effect, Either } from "effect"
import fc from "fast-check"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { describe, expect, it } from "vitest"
import { allocate, keyOf, moreLine, SECTIONS, type BriefItem, type SectionId } from "../../../src/domain/brief/Brief.js"
import { indexDrift, indexOf, parseIndex, renderIndex } from "../../../src/domain/brief/Index.js"
import { valueOf, type ItemKind } from "../../../src/domain/brief/Value.js"
import { fitBrief } from "../../../src/programs/brief/brief.js"
import type { RawItem } from "../../../src/programs/brief/items.js"

// R-BRF-1/2/3: the brief is never over budget, and nothing is lost (every item is in the brief or in index.json).

const count = (text: string) => Effect.sync(() => countTokens(text, { disallowedSpecial: new Set() }))
const fit = (items: ReadonlyArray<RawItem>, budget: number) => Effect.runSync(Effect.either(fitBrief({ name: "p", tier: "custom", budget, items }, count)))

const KINDS: ReadonlyArray<[ItemKind, SectionId]> = [["rule", "constraints"], ["failure", "failures"], ["business", "business"], ["question", "questions"], ["decision", "map"], ["doc", "pointers"], ["identity", "identity"]]
const WORDS = ["migration", "transaction", "index", "orders", "refund", "quota", "42", "€", "retry", "lock", "schema", "`src/db`", "日本", "—", "ok"]

const rawItem = fc.record({
  kind: fc.constantFrom(...KINDS),
  n: fc.nat({ max: 5 }),
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 900 }),
  title: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 })
})

const items = fc.array(rawItem, { maxLength: 60 }).map((raws) =>
  raws.map((r, i): RawItem => {
    const [kind, section] = r.kind
    const title = r.title.join(" ")
    const path = `docs/${String(i).padStart(3, "0")}.md`
    return { path, ref: "", title, kind, section, score: valueOf(kind, r.n), tags: [kind], content: `### ${title}\n\n${r.words.join(" ")}`, pointer: `- ${title} — \`${path}\`` }
  }))

describe("fitBrief (property)", () => {
  it("never exceeds the budget and loses nothing", () => {
    fc.assert(
      fc.property(items, fc.integer({ min: 1_000, max: 6_000 }), (raw, budget) => {
        const result = fit(raw, budget)
        if (Either.isLeft(result)) throw new Error(result.left.message)
        const r = result.right
        expect(countTokens(r.brief)).toBeLessThanOrEqual(budget)
        expect(r.tokens).toBe(countTokens(r.brief))
        // Every item is in index.json; in_brief items appear in the brief as content or pointer.
        expect(r.index.items.length).toBe(raw.length)
        const more = [...r.allocation.placed.values()].filter((p) => p === "more").length
        expect(r.index.items.filter((e) => e.in_brief).length).toBe([...r.allocation.placed.values()].filter((p) => p === "content").length)
        for (const item of r.items) {
          const at = r.allocation.placed.get(keyOf(item))
          if (at === "content") expect(r.brief).toContain(item.content.trimEnd())
          else if (at === "pointer") expect(r.brief).toContain(item.pointer)
          else expect(at).toBe("more")
        }
        if (more > 0) expect(r.brief).toContain(moreLine(more))
        else expect(r.brief).not.toContain("more in .ai/index.json")
      }),
      { numRuns: 40 }
    )
  }, 120_000)

  it("refuses, rather than write over budget, when the fixed text alone does not fit (R-BRF-2)", () => {
    const r = Effect.runSync(Effect.either(fitBrief({ name: "shop ".repeat(1_200), tier: "custom", budget: 1_000, items: [] }, count)))
    expect(Either.isLeft(r) && r.left.message).toMatch(/^the brief cannot fit its 1000-token budget \(custom\): its fixed sections alone take \d+ tokens$/)
  })

  it("an item bigger than the whole budget is demoted to its pointer, never dropped", () => {
    const huge: RawItem = { path: "docs/business/huge.md", ref: "", title: "Huge", kind: "business", section: "business", score: 25, tags: [], content: "€1 per order. ".repeat(3_000), pointer: "- Huge — `docs/business/huge.md`" }
    const r = Effect.runSync(fitBrief({ name: "p", tier: "lean", budget: 4_000, items: [huge] }, count))
    expect(r.brief).toContain("- Huge — `docs/business/huge.md`")
    expect(r.index.items).toMatchObject([{ path: "docs/business/huge.md", in_brief: false }])
    expect(r.tokens).toBeLessThanOrEqual(4_000)
  })
})

const item = (over: Partial<BriefItem> & Pick<BriefItem, "path" | "section" | "score" | "tokens">): BriefItem => ({
  ref: "",
  title: over.path,
  kind: "doc",
  tags: [],
  content: `content of ${over.path}`,
  pointer: `- ${over.path}`,
  pointerTokens: 5,
  ...over
})

describe("allocate", () => {
  it("pass 1 fills a section by value per token; pass 2 gives unused allowance elsewhere to what is left", () => {
    // Standard budget: constraints have 2,500 tokens. Two 2,000-token rules: one fits in pass 1,
    // the other only through pass 2 (failures' 3,000 are unused).
    const a = item({ path: "rules/a.md", section: "constraints", score: 16, tokens: 2_000 })
    const b = item({ path: "rules/b.md", section: "constraints", score: 10, tokens: 2_000 })
    const r = allocate([a, b], 12_000, 11_500)
    expect(r.placed.get(keyOf(a))).toBe("content")
    expect(r.placed.get(keyOf(b))).toBe("content")
    expect(r.reasons.get(keyOf(a))).toContain("fits the section's 2500-token allowance")
    expect(r.reasons.get(keyOf(b))).toContain("unused allowance elsewhere")
  })

  it("demotes to a pointer what does not fit, and counts the rest when pointers run out", () => {
    const big = item({ path: "docs/business/big.md", section: "business", score: 25, tokens: 50_000 })
    const docs = Array.from({ length: 10 }, (_, i) => item({ path: `docs/d${i}.md`, section: "pointers", score: 1, tokens: 10, pointerTokens: 100 }))
    const r = allocate([big, ...docs], 1_000, 450)
    expect(r.placed.get(keyOf(big))).toBe("pointer")
    expect(r.reasons.get(keyOf(big))).toContain("demoted to a pointer")
    const placements = docs.map((d) => r.placed.get(keyOf(d)))
    expect(placements.filter((p) => p === "pointer").length).toBe(4)
    expect(placements.filter((p) => p === "more").length).toBe(6)
  })

  it("is deterministic: the same items in another order allocate the same", () => {
    const xs = Array.from({ length: 20 }, (_, i) => item({ path: `rules/${i}.md`, section: SECTIONS[i % 6]!.id, score: (i % 4) + 1, tokens: 300 + (i % 3) }))
    const one = allocate(xs, 4_000, 3_500)
    const two = allocate([...xs].reverse(), 4_000, 3_500)
    expect([...two.placed.entries()].sort()).toEqual([...one.placed.entries()].sort())
  })
})

describe("index.json drift (R-BRF-3, R-CHK-1)", () => {
  const a = item({ path: "rules/a.md", section: "constraints", score: 16, tokens: 100 })
  const b = item({ path: "docs/z.md", section: "pointers", score: 1, tokens: 100 })
  const index = (xs: ReadonlyArray<BriefItem>, out: ReadonlyArray<string> = []) =>
    indexOf({ tier: "lean", budget: 4_000, items: xs, allocation: { placed: new Map(xs.map((x) => [keyOf(x), out.includes(x.path) ? ("more" as const) : ("content" as const)])), reasons: new Map() } })

  it("is sorted by path and round-trips", () => {
    const i = index([a, b])
    expect(i.items.map((e) => e.path)).toEqual(["docs/z.md", "rules/a.md"])
    const parsed = parseIndex(renderIndex(i))
    expect(Either.isRight(parsed) && parsed.right).toEqual(i)
  })

  it("fires: a briefed item's tokens changed, an artifact added or removed", () => {
    expect(indexDrift(index([a, b]), index([{ ...a, tokens: 101 }, b]))).toEqual([{ path: "rules/a.md", ref: "", message: "briefed item changed (tokens)" }])
    expect(indexDrift(index([a]), index([a, b])).map((d) => d.message)).toEqual(["added since the brief was written"])
    expect(indexDrift(index([a, b]), index([a])).map((d) => d.message)).toEqual(["removed since the brief was written"])
  })

  it("stays silent: tokens and score of an item out of the brief moved", () => {
    expect(indexDrift(index([a, b], ["docs/z.md"]), index([a, { ...b, tokens: 999, score: 7 }], ["docs/z.md"]))).toEqual([])
    expect(indexDrift(index([a, b]), index([a, b]))).toEqual([])
  })

  it("rejects a malformed index naming the field", () => {
    const bad = parseIndex(JSON.stringify({ tier: "lean", budget: 4000, brief: ".ai/BRIEF.md", items: [{ section: "constraints", title: "x", path: "p", ref: "", score: "high", tokens: 1, tags: [], in_brief: true }] }))
    expect(Either.isLeft(bad) && bad.left).toContain("items.0.score")
  })
})
