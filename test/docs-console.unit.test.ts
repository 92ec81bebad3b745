import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { compareJson, compareOutput, consoleBlocks, shellWords } from "./support/docsConsole.js"

// The docs test's reader and comparer (issue 15 item 10): what a doc may write, and what counts as a match.

describe("docs console blocks: reading", () => {
  const root = mkdtempSync(join(process.env.AKM_TEST_WORKER_DIR ?? tmpdir(), "akm-docs-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const doc = (text: string) => {
    writeFileSync(join(root, "doc.md"), text)
    return consoleBlocks(root, join(root, "doc.md"))
  }

  it("splits commands from their output, strips comments, keeps quoted words whole", () => {
    expect(shellWords(`akm search "rate limits" --bundle 'a b'   # a comment`)).toEqual(["akm", "search", "rate limits", "--bundle", "a b"])
    expect(shellWords(`akm show notes//x#frag`)).toEqual(["akm", "show", "notes//x#frag"])
    const [block] = doc("text\n\n```console\n$ akm info\nakm  0.1.0\n\n$ echo $?\n0\n```\n")
    expect(block).toMatchObject({ doc: "doc.md", line: 3, norun: false, setup: [] })
    expect(block!.commands).toEqual([
      { line: "akm info", argv: ["info"], kind: "akm", expected: ["akm  0.1.0"] },
      { line: "echo $?", argv: [], kind: "exit-status", expected: ["0"] }
    ])
  })

  it("a norun block names its backing tests; a setup comment belongs to the next block; ```sh blocks are not read", () => {
    const blocks = doc("<!-- console-setup:\n$ akm bundle add examples/notes\n-->\n\n```sh\n$ rm -rf /\n```\n\n```console norun test/a.test.ts test/b.test.ts\n$ akm bundle add https://x\n```\n")
    expect(blocks).toHaveLength(1)
    expect(blocks[0]).toMatchObject({ norun: true, backedBy: ["test/a.test.ts", "test/b.test.ts"], commands: [] })
    expect(blocks[0]!.setup.map((c) => c.argv)).toEqual([["bundle", "add", "examples/notes"]])
  })

  it("a command that is not akm in a block that runs is refused with the place to fix", () => {
    expect(() => doc("```console\n$ ls -l\n```\n")).toThrow(/doc\.md:1: '\$ ls -l' is not an akm command/)
  })
})

describe("docs console blocks: comparing", () => {
  it("times, durations, ids, sizes and column widths do not matter; text does", () => {
    const expected = ["9c1d2e3f  accepted  2026-03-02 09:14", "3 of 6 · 21.8 ms", "state.db  /x/state.db  20.0 KiB"]
    expect(compareOutput(expected, "7c0c4ce5   accepted   2026-12-01 14:53\n3 of 6 · 40.04 ms\nstate.db  /x/state.db     104.0 KiB\n")).toBeUndefined()
    expect(compareOutput(expected, "7c0c4ce5  pending  2026-12-01 14:53\n3 of 6 · 40.04 ms\nstate.db  /x/state.db  1 KiB\n")).toContain("expected:")
  })

  it("… stands for any text in a line, and for any number of lines on a line of its own", () => {
    expect(compareOutput(["error: …", "…", "last"], "error: anything at all\nmore\nlines\nlast")).toBeUndefined()
    expect(compareOutput(["a", "…"], "a")).toBeUndefined()
    expect(compareOutput(["a"], "a\nb")).toBeDefined()
  })

  it("JSON: the keys shown must match; … in strings and a last \"…\" element stand for more", () => {
    const actual = { a: 1, b: "a long description here", list: [1, 2, 3], bytes: 4096, extra: true }
    expect(compareJson({ a: 1, b: "a long …", list: [1, "…"], bytes: 1 }, actual)).toBeUndefined()
    expect(compareJson({ list: [1, 2] }, actual)).toContain("$.list")
    expect(compareJson({ a: 2 }, actual)).toContain("$.a")
    expect(compareJson({ missing: null }, actual)).toContain("missing")
  })
})
