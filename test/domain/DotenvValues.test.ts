import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { formatEnvValue, parseEnvValues, setEnvValue } from "../../src/domain/DotenvValues.js"

const values = (text: string) => Object.fromEntries(parseEnvValues(text).entries.map((e) => [e.name, e.value]))

describe("parseEnvValues (env run, env export, env set)", () => {
  it("reads plain, exported, quoted and multi-line values; nothing is expanded", () => {
    const text = [
      "# a comment",
      "PLAIN=abc123 # trailing comment",
      "export EXPORTED=yes",
      "SINGLE='a $HOME #literal'",
      "DOUBLE=\"line1\\nline2 \\\"q\\\" \\\\ $(id)\"",
      "MULTI=\"first",
      "second\"",
      "HASH=a#b",
      "EMPTY=\"\""
    ].join("\n")
    expect(values(text)).toEqual({
      PLAIN: "abc123",
      EXPORTED: "yes",
      SINGLE: "a $HOME #literal",
      DOUBLE: "line1\nline2 \"q\" \\ $(id)",
      MULTI: "first\nsecond",
      HASH: "a#b",
      EMPTY: ""
    })
    expect(parseEnvValues(text).problems).toEqual([])
  })

  it("a bare KEY or KEY= declares a required key (no value); `# akm:default` marks a showable default", () => {
    const parsed = parseEnvValues("NEEDED=\nexport REGION\n\n# akm:default\nURL=http://127.0.0.1\nTOKEN=x\n")
    expect(parsed.entries.map((e) => [e.name, e.value, e.isDefault])).toEqual([
      ["NEEDED", undefined, false],
      ["REGION", undefined, false],
      ["URL", "http://127.0.0.1", true],
      ["TOKEN", "x", false]
    ])
  })

  it("reports a duplicate key, an invalid line and an unclosed quote by line and key, never by text", () => {
    expect(parseEnvValues("A=1\nA=2\n").problems).toEqual([{ kind: "duplicate-key", line: 2, name: "A" }])
    expect(parseEnvValues("not a line at all\n").problems).toEqual([{ kind: "invalid-line", line: 1 }])
    expect(parseEnvValues("OK=1\nB=\"never closed\n").problems).toEqual([{ kind: "unterminated-value", line: 2, name: "B" }])
  })
})

describe("setEnvValue", () => {
  it("replaces the first assignment in place, keeping export, CRLF and every other line", () => {
    const text = "# top\r\nexport TOKEN=old\r\nOTHER=\"multi\r\nline\"\r\nLAST=1\r\n"
    expect(setEnvValue(text, "TOKEN", "new value")).toBe("# top\r\nexport TOKEN='new value'\r\nOTHER=\"multi\r\nline\"\r\nLAST=1\r\n")
    expect(setEnvValue(text, "OTHER", "x")).toBe("# top\r\nexport TOKEN=old\r\nOTHER=x\r\nLAST=1\r\n")
  })

  it("appends a key the file does not have, and creates a file's first line", () => {
    expect(setEnvValue("A=1", "B", "2")).toBe("A=1\nB=2\n")
    expect(setEnvValue("", "B", "2")).toBe("B=2\n")
  })

  it("property: any value without NUL reads back exactly after set (format round trip)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }).filter((v) => !v.includes("\0")), fc.constantFrom("", "A=1\n", "# c\nK=old\nZ=2\n"), (value, base) => {
        const next = setEnvValue(base, "K", value)
        expect(values(next).K).toBe(value)
        expect(parseEnvValues(next).problems).toEqual([])
      }),
      { numRuns: 300 }
    )
    expect(formatEnvValue("simple-1.2")).toBe("simple-1.2")
  })
})
