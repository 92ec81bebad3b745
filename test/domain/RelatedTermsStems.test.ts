import { describe, expect, it } from "vitest"
import { terms } from "../../src/domain/Query.js"
import { vocabularyWords } from "../../src/domain/RelatedTerms.js"
import { VOCABULARY_STEMS } from "../../src/domain/RelatedTermsStems.js"

/**
 * The related-terms vocabulary's stems are written out (RelatedTermsStems.ts)
 * so no command stems them at start (docs/decisions/0060-read-path-margins.md).
 * They must be the stemmer's own answers, for every word and for no other.
 */
describe("related terms: the written-out stems", () => {
  const expected = Object.fromEntries(vocabularyWords().map((word) => [word, terms(word).join(" ")]))
  const table = `{\n${Object.entries(expected).map(([word, stems]) => `  ${JSON.stringify(word)}: ${JSON.stringify(stems)}`).join(",\n")}\n}`

  it("holds the stemmer's stems of every vocabulary word, and nothing else (else paste the table printed below)", () => {
    expect(VOCABULARY_STEMS, `VOCABULARY_STEMS should be:\n${table}`).toEqual(expected)
  })
})
