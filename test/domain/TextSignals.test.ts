import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { tokenize } from "../../src/domain/Query.js"
import { indexWords, itemDiversity, itemWords, saturateField, textDiversity } from "../../src/domain/TextSignals.js"

/**
 * The index-time shortcuts of TextSignals (docs/decisions/0044) give what the
 * plain definitions give: the ASCII word regex the Unicode tokenizer's words,
 * the per-field diversity the diversity of the joined text.
 */

const pieces = ["Straße", "ΟΔΟΣ", "Σ", "ς", "café", "cafe\u0301", "\u0301", "µs", "ＡＢＣ", "認証", "api", "c++", "docker-homelab", "x_y", "1.0", " ", "\n", "\t", "\u0007", "İ", "ǅ", "e\u0308", "ﬁ", "🙂", "Ⅻ", "abc", "ABC"]
const mixed = fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 12 })), { maxLength: 40 }).map((parts) => parts.join(""))
const ascii = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 200 })

describe("index words", () => {
  it("are the tokenizer's words on ASCII and on mixed text", () => {
    fc.assert(fc.property(ascii, (text) => { expect(indexWords(text)).toEqual(tokenize(text)) }), { numRuns: 2000 })
    fc.assert(fc.property(mixed, (text) => { expect(indexWords(text)).toEqual(tokenize(text)) }), { numRuns: 2000 })
  })

  it("saturate a field the same with or without words given", () => {
    const field = "deploy deploy deploy deploy rollback Deploy DEPLOY kubernetes"
    expect(saturateField(field, indexWords(field))).toBe(saturateField(field))
    expect(saturateField(field)).toBe("deploy deploy deploy rollback kubernetes")
  })
})

describe("item diversity from the fields' words", () => {
  const joined = (f: { name: string; description: string; content: string }) => textDiversity(`${f.name}\n${f.description}\n${f.content}`)

  it("equals the diversity of the joined text", () => {
    const repeat = fc.tuple(fc.constantFrom("alpha beta ", "Σ ΟΔΟΣ ", "café ", "gamma\u0301 "), fc.integer({ min: 0, max: 300 })).map(([w, n]) => w.repeat(n))
    const field = fc.oneof(mixed, ascii, repeat)
    fc.assert(fc.property(field, field, field, (name, description, content) => {
      const f = { name, description, content }
      expect(itemDiversity(f, itemWords(f))).toBe(joined(f))
      expect(itemDiversity(f)).toBe(joined(f))
    }), { numRuns: 1500 })
  })

  it("equals it around the length where the joined text is cut", () => {
    const word = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do "
    for (const extra of [-3, -2, -1, 0, 1, 2, 3, 50]) {
      const content = word.repeat(Math.ceil(12_288 / word.length)).slice(0, 12_288 - 2 - 4 - 5 + extra)
      const f = { name: "name", description: "words", content }
      expect(itemDiversity(f)).toBe(joined(f))
    }
    const many = Array.from({ length: 3000 }, (_, i) => `w${i % 700}`).join(" ").slice(0, 12_000)
    expect(itemDiversity({ name: "a", description: "b", content: many })).toBe(joined({ name: "a", description: "b", content: many }))
  })
})
