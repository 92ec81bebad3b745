import { describe, expect, it } from "vitest"
import { parseQuery } from "../../src/domain/Query.js"
import { collapseWhitespace, findTerms, makeSnippet, markTerms, snippetTerms, SNIPPET_CHARS, withoutTitleHeading } from "../../src/domain/Snippet.js"

// Search hit snippets (issue 15 item 6): where the terms are, plain, bounded.

const terms = (query: string) => snippetTerms(parseQuery(query))
const marked = (text: string, query: string) => markTerms(text, terms(query), (t) => `[${t}]`)

describe("snippet terms", () => {
  it("finds a query word by its stem, its other spelling and, from 3 characters, as a prefix", () => {
    expect(marked("Caching HTTP responses; the cache is cached.", "cache http")).toBe("[Caching] [HTTP] responses; the [cache] is [cached].")
    expect(marked("The production database", "prod db")).toBe("The [production] [database]")
    expect(marked("Dockerfile and docker compose", "dock")).toBe("[Dockerfile] and [docker] compose")
    // Inside another word is no match; stopwords are not terms.
    expect(marked("undocked in the dock", "dock the")).toBe("undocked in the [dock]")
  })

  it("marks substrings for scripts without spaces, and nothing for browse or list-everything", () => {
    expect(marked("全文検索エンジンの設定", "検索")).toBe("全文[検索]エンジンの設定")
    expect(marked("anything here", "skills/")).toBe("anything here")
    expect(marked("anything here", "")).toBe("anything here")
  })

  it("a mark function and a plain function see the pieces in order", () => {
    expect(markTerms("a *docker* b", terms("docker"), (t) => `**${t}**`, (t) => t.replaceAll("*", "\\*"))).toBe("a \\***docker**\\* b")
  })
})

describe("makeSnippet", () => {
  it("takes the source with the most distinct terms, the description on a tie", () => {
    expect(makeSnippet(terms("rotate keys"), ["Rotate the keys monthly", "Rotate keys in the body too"])).toBe("Rotate the keys monthly")
    expect(makeSnippet(terms("rotate keys vault"), ["Rotate the keys monthly", "Keys live in Vault; rotate them"])).toBe("Keys live in Vault; rotate them")
  })

  it("without any term, the opening of the first source with text; an item without text has an empty snippet", () => {
    expect(makeSnippet(terms("zzz"), [undefined, "  First line\n\nsecond  line "])).toBe("First line second line")
    expect(makeSnippet(terms("zzz"), [undefined, ""])).toBe("")
  })

  it("cuts a long text around the stretch with the most terms, at spaces, with … where cut, within SNIPPET_CHARS", () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i}`).join(" ")
    const text = `${filler(80)} the vault holds the rotation schedule ${filler(80)}`
    const snippet = makeSnippet(terms("vault rotation"), [undefined, text])
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_CHARS)
    expect(snippet).toMatch(/^….* the vault holds the rotation schedule .*…$/)
    expect(snippet).not.toMatch(/ …|… /)
    // A shorter text is whole, wherever its term is.
    expect(makeSnippet(terms("vault"), [undefined, "the vault"])).toBe("the vault")
    const short = `${filler(15)} vault`
    expect(makeSnippet(terms("vault"), [undefined, short])).toBe(short)
    // Only the text around the stretch is read; what lies beyond still shows as cut.
    const page = `${"intro ".repeat(2_000)}\n\n   the vault\n\n${"   outro\n".repeat(2_000)}`
    const far = makeSnippet(terms("vault"), [undefined, page])
    expect(far).toMatch(/^…(intro )+the vault( outro)+…$/)
    expect(far.length).toBeLessThanOrEqual(SNIPPET_CHARS)
    const blanks = makeSnippet(terms("vault"), [undefined, `${" ".repeat(5_000)}the vault`])
    expect(blanks).toBe("the vault")
  })

  it("never splits a character made of two UTF-16 units", () => {
    const text = "😀".repeat(300)
    for (const at of [0, 1, 150]) {
      const snippet = makeSnippet(terms("zzz"), [text.slice(at * 2)])
      expect(snippet.length).toBeLessThanOrEqual(SNIPPET_CHARS)
      expect(snippet.replaceAll("😀", "").replaceAll("…", "")).toBe("")
    }
  })

  it("bounds the work on a huge text", () => {
    const text = "docker ".repeat(200_000)
    expect(findTerms(text, terms("docker")).length).toBeLessThanOrEqual(2_000)
    expect(makeSnippet(terms("docker"), [text]).length).toBeLessThanOrEqual(SNIPPET_CHARS)
  })
})

describe("withoutTitleHeading", () => {
  it("drops an opening line that repeats the title, with or without #", () => {
    expect(withoutTitleHeading("# Docker clean\n\nPrune.", "Docker clean")).toBe("\nPrune.")
    expect(withoutTitleHeading("Docker Clean\nPrune.", "docker clean")).toBe("Prune.")
    expect(withoutTitleHeading("Other\nPrune.", "Docker clean")).toBe("Other\nPrune.")
  })
  it("collapseWhitespace makes one line", () => {
    expect(collapseWhitespace(" a\n\tb  c ")).toBe("a b c")
  })
})
