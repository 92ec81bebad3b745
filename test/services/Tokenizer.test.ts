import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { makeTokenizer, TokenizerGpt } from "../../src/layers/tokenizer/TokenizerGpt.js"
import { Tokenizer } from "../../src/services/Tokenizer.js"
import { repoRoot, runAkm } from "../support/cli.js"

const samples = [
  "Hello, world!",
  "# Heading\n\nA paragraph with `code` and a [link](other.md).\n\n```ts\nconst x = 1\n```\n",
  "日本語のテキストとemoji 🎉 mixed with English.",
  "  leading and trailing whitespace\t\n\n"
]

describe("Tokenizer (gpt-tokenizer, o200k_base)", () => {
  it.effect("counts exactly what gpt-tokenizer counts; empty text is 0 tokens", () =>
    Effect.gen(function* () {
      const tokenizer = yield* Tokenizer
      expect(tokenizer.encoding).toBe("o200k_base")
      for (const text of samples) expect(yield* tokenizer.count(text)).toBe(countTokens(text))
      expect(yield* tokenizer.count("")).toBe(0)
    }).pipe(Effect.provide(TokenizerGpt)))

  it.effect("special-token markers inside a note are plain text, not an error", () =>
    Effect.gen(function* () {
      const tokenizer = yield* Tokenizer
      const n = yield* tokenizer.count("a note quoting <|endoftext|> and <|im_start|>")
      expect(n).toBeGreaterThan(5)
    }).pipe(Effect.provide(TokenizerGpt)))

  it.effect("loads the encoding on the first count only, and once", () =>
    Effect.gen(function* () {
      let loads = 0
      const tokenizer = yield* makeTokenizer("test", async () => {
        loads++
        return { countTokens: (text: string) => text.length }
      })
      expect(loads).toBe(0)
      expect(yield* tokenizer.count("")).toBe(0)
      expect(loads).toBe(0)
      expect(yield* tokenizer.count("abc")).toBe(3)
      expect(yield* tokenizer.count("abcdef")).toBe(6)
      expect(loads).toBe(1)
    }))

  it("stays out of the CLI bundle: the ranks load from node_modules on first use", async () => {
    await runAkm(["--version"]) // builds dist/ when it is missing or stale
    const bundle = readFileSync(join(repoRoot, "dist", "cli", "main.cjs"), "utf8")
    expect(bundle).toContain('require("gpt-tokenizer/encoding/o200k_base")')
    expect(bundle).not.toContain("import(")
    // The ranks (2.4 MB of data) are not inside: a stretch from the middle of their file appears nowhere in the bundle.
    const ranks = readFileSync(join(repoRoot, "node_modules", "gpt-tokenizer", "cjs", "bpeRanks", "o200k_base.js"), "utf8")
    expect(bundle.includes(ranks.slice(ranks.length / 2, ranks.length / 2 + 64))).toBe(false)
  })
})
