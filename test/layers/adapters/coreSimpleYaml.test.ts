import fc from "fast-check"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { isMap, LineCounter, parseDocument } from "yaml"
import { normalizeText } from "../../../src/layers/adapters/core/Frontmatter.js"
import { readSimpleYaml } from "../../../src/layers/adapters/core/SimpleYaml.js"
import { generateCorpus } from "../../../bench/corpus.js"
import { sharedRoot } from "../../../bench/quality.js"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"

/**
 * The CST-free frontmatter reader must read every block it accepts exactly as
 * `yaml` does (data under the core schema, strings under failsafe, each
 * top-level key's line), and decline everything else (docs/decisions/0014-index-speed.md).
 */

/** What `yaml` reads from a block: the reference. */
const withYaml = (block: string) => {
  const counter = new LineCounter()
  const doc = parseDocument(block, { uniqueKeys: true, lineCounter: counter })
  if (doc.errors.length > 0) return { error: true as const }
  if (doc.contents === null) return { data: {}, strings: {}, keyLines: {} }
  if (!isMap(doc.contents)) return { error: true as const }
  const keyLines: Record<string, number> = {}
  for (const pair of doc.contents.items) {
    const key = pair.key as { value?: unknown; range?: [number, number, number] }
    if (key.range !== undefined) keyLines[String(key.value)] = counter.linePos(key.range[0]).line - 1
  }
  const failsafe = parseDocument(block, { uniqueKeys: true, schema: "failsafe" })
  return { data: doc.toJS({ maxAliasCount: 100 }) ?? {}, strings: failsafe.toJS({ maxAliasCount: 100 }) ?? {}, keyLines }
}

/** The frontmatter block of a file, as Frontmatter.ts splits it. */
const blockOf = (text: string): string | undefined => {
  const lines = normalizeText(text).split("\n")
  if (!/^---[ \t]*$/.test(lines[0] ?? "")) return undefined
  const end = lines.findIndex((line, i) => i > 0 && /^(?:---|\.\.\.)[ \t]*$/.test(line))
  return end === -1 ? undefined : lines.slice(1, end).join("\n")
}

/** What the fast reader gives, in the reference's shape. */
const fast = (block: string) => {
  const simple = readSimpleYaml(block)
  return simple === undefined ? undefined : { data: simple.data, strings: simple.strings(), keyLines: simple.keyLines }
}

const agrees = (block: string): boolean => {
  const simple = fast(block)
  if (simple === undefined) return false
  expect(simple, JSON.stringify(block)).toEqual(withYaml(block))
  return true
}

const repo = fileURLToPath(new URL("../../..", import.meta.url))

const textFiles = (dir: string, out: Array<string> = []): Array<string> => {
  if (!existsSync(dir)) return out
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === ".git") continue
    const file = join(dir, entry)
    const stat = statSync(file, { throwIfNoEntry: false })
    if (stat === undefined) continue
    if (stat.isDirectory()) textFiles(file, out)
    else if (stat.isFile() && stat.size < 1_000_000 && /\.(md|mdx|markdown|txt)$/i.test(entry)) out.push(file)
  }
  return out
}

const shared = sharedRoot()

describe("SimpleYaml.readSimpleYaml against yaml", () => {
  it("reads every frontmatter of the fixtures, examples, docs and shared corpora as yaml does, or declines", () => {
    const files = [
      ...textFiles(join(repo, "test", "fixtures")),
      ...textFiles(join(repo, "examples")),
      ...textFiles(join(repo, "docs")),
      ...textFiles(join(shared, "corpora")),
      ...textFiles(join(shared, "bench"))
    ]
    let blocks = 0
    let read = 0
    for (const file of files) {
      const block = blockOf(readFileSync(file, "utf8"))
      if (block === undefined) continue
      blocks++
      if (agrees(block)) read++
    }
    expect(blocks).toBeGreaterThan(50)
    // Most real frontmatter is simple: the fast reader must take the bulk of it to pay.
    expect(read / blocks).toBeGreaterThan(0.5)
  })

  it("reads every template of the bench corpus as yaml does", () => {
    const dir = mkdtempSync(join(tmpdir(), "akm-simple-yaml-"))
    try {
      const corpus = generateCorpus({ dir, size: 300 })
      let blocks = 0
      let read = 0
      for (const path of corpus.paths) {
        const block = blockOf(readFileSync(join(dir, path), "utf8"))
        if (block === undefined) continue
        blocks++
        if (agrees(block)) read++
      }
      expect(blocks).toBeGreaterThan(100)
      expect(read / blocks).toBeGreaterThan(0.4)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("resolves scalars by the core schema and keeps quoted ones as strings", () => {
    for (const block of [
      "a: 1\nb: 1.0\nc: .5\nd: 1e3\ne: 0x1f\nf: 0o17\ng: true\nh: False\ni: ~\nj: null\nk:\nl: .inf\nm: .INF\nn: .nan\no: 2026-12-31\np: +12",
      "a: \"1\"\nb: 'true'\nc: 'it''s'\nd: \"\"\ne: ''",
      "tags: [a, b c, 1, true, ~]\nempty: []\nlist:\n  - x\n  - 2\n  - 'y'\nnext: z",
      "compact:\n- a\n- b\nafter: 1",
      "# a comment\n\nparams:\n  focus: what to look at first (tests, naming, security)\n  # inside\n  other: [x]\n  none:\nlast: v",
      "name: C# and F#\nurl: https://example.com/a?b=c\nwin: C:\\path\\x\npunct: a, b; c! (d) {e} [f]",
      "unicode: héllo — 世界\nemoji: 🚀 launch",
      "generated: { by: human:akm-maintainers, at: 2026-11-30T09:00:00Z }\nnone: {}\nmixed: {a: 1, b: true, c: ~, d: x y}\nseq: [a:b, c]"
    ]) expect(agrees(block), block).toBe(true)
  })

  it("declines what it cannot read exactly: yaml decides", () => {
    for (const block of [
      "a: b: c",
      "a: x # comment",
      "a: |\n  text",
      "a: >\n  folded",
      "a: &anchor x\nb: *anchor",
      "a: !!str 1",
      "a: multi\n  line",
      "a: 1\na: 2",
      "a:\n  - x: 1\n      y: 2",
      "a:\n  - x: 1\n    - y",
      "a:\n  -  x: 1",
      "a: [x, 'y]",
      "a: {b: \"c}",
      "a:\n  b:\n    c: 1",
      "a: [x, [y]]",
      "a: [x,\n  y]",
      "a: {b: {c: 1}}",
      "a: {b}",
      "a: {b: 1, b: 2}",
      "\"quoted key\": 1",
      "a:\tb",
      "- top-level list",
      "%YAML 1.1\n---\na: 1",
      "a: \"esc\\n\"",
      "true: 1",
      "__proto__: x",
      "a:\n  - x\n   - y",
      "a:\n    b: 1\n  c: 2"
    ]) expect(readSimpleYaml(block), block).toBeUndefined()
  })

  it("agrees with yaml on random blocks of simple lines, or declines", () => {
    const word = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,8}$/)
    const value = fc.oneof(
      fc.stringMatching(/^[ -~]{0,20}$/),
      fc.constantFrom("1", "1.5", "true", "~", "null", "0x10", ".inf", "2026-01-01", "x: y", "a #b", "[a, b]", "[]", "{a: 1, b: c:d}", "{}", "{ a: b }", "{a:b}", "[a:b]", "'q'", "\"d\"", "-1", "- x", "é", "a,b", "[a, 'b']", "[a, 'b, c']", "{a: \"x, y\"}", "['']", "[\"\"]", "{a: 'it''s'}")
    )
    const line = fc.oneof(
      fc.tuple(word, value).map(([k, v]) => `${k}: ${v}`),
      fc.tuple(word).map(([k]) => `${k}:`),
      fc.tuple(fc.constantFrom("  ", "", "    "), value).map(([i, v]) => `${i}- ${v}`),
      fc.tuple(fc.constantFrom("  ", "    "), word, value).map(([i, k, v]) => `${i}${k}: ${v}`),
      fc.tuple(fc.constantFrom("  ", "", "    "), word, value).map(([i, k, v]) => `${i}- ${k}: ${v}`),
      fc.constantFrom("", "# c", "  # c")
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        const block = lines.join("\n")
        const simple = fast(block)
        if (simple !== undefined) expect(simple, JSON.stringify(block)).toEqual(withYaml(block))
      }),
      { numRuns: 3000 }
    )
  })
})

describe("Unicode spaces YAML keeps as text", () => {
  it("a block holding one (U+00A0, U+3000 …) goes to `yaml`, which reads it as text, not as an empty value", () => {
    for (const block of ["a:\n  - \u00a0\n", "a: [ \u00a0 ]\n", "a: \u3000\n", "b: x\u2028y\n"]) {
      expect(readSimpleYaml(block)).toBeUndefined()
    }
    expect(parseDocument("a:\n  - \u00a0\n").toJS()).toEqual({ a: ["\u00a0"] })
  })
})
