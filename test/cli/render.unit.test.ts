import { Option } from "effect"
import { parse as parseYaml } from "yaml"
import { describe, expect, it } from "vitest"
import { redactReport } from "../../src/cli/exitCodes.js"
import { formatFromArgv, hoistGlobalOptions, resolveFormat } from "../../src/cli/options.js"
import { forTerminal, neutralise, renderError, renderResult, styleFor, table, type View } from "../../src/cli/render.js"

const value = { bundles: [{ name: "a" }, { name: "b" }], defaultBundle: "a" }
const view: View<typeof value> = {
  text: (v) => v.bundles.map((b) => b.name).join("\n"),
  md: (v) => `| name |\n|---|\n${v.bundles.map((b) => `| ${b.name} |`).join("\n")}`,
  rows: (v) => v.bundles
}
const plain = styleFor(false, {})

describe("output formats (spec 09 §1)", () => {
  it("json carries schemaVersion 1", () => {
    expect(JSON.parse(renderResult("json", value, view, plain))).toEqual({ schemaVersion: 1, ...value })
  })
  it("jsonl writes one row per line", () => {
    const lines = renderResult("jsonl", value, view, plain).trimEnd().split("\n")
    expect(lines.map((l) => JSON.parse(l))).toEqual(value.bundles.map((b) => ({ schemaVersion: 1, ...b })))
  })
  it("jsonl without rows writes the whole result on one line", () => {
    const out = renderResult("jsonl", { a: 1 }, { text: () => "" }, plain)
    expect(out).toBe('{"schemaVersion":1,"a":1}\n')
  })
  it("yaml parses back to the versioned result", () => {
    expect(parseYaml(renderResult("yaml", value, view, plain))).toEqual({ schemaVersion: 1, ...value })
  })
  it("md uses the markdown view, falling back to text", () => {
    expect(renderResult("md", value, view, plain)).toContain("| name |")
    expect(renderResult("md", value, { text: () => "plain" }, plain)).toBe("plain\n")
  })
  it("text ends with exactly one newline", () => {
    expect(renderResult("text", value, view, plain)).toBe("a\nb\n")
  })
  it("defaults to text on a TTY and json otherwise", () => {
    expect(resolveFormat(Option.none(), true)).toBe("text")
    expect(resolveFormat(Option.none(), false)).toBe("json")
    expect(resolveFormat(Option.some("yaml"), true)).toBe("yaml")
  })
  it("reads --format from raw argv for errors raised before parsing", () => {
    expect(formatFromArgv(["frob", "--format", "text"], false)).toBe("text")
    expect(formatFromArgv(["frob", "--format=yaml"], true)).toBe("yaml")
    expect(formatFromArgv(["frob", "--format", "bogus"], true)).toBe("text")
    expect(formatFromArgv(["frob"], false)).toBe("json")
  })
})

describe("error envelope", () => {
  const report = redactReport({ exit: 2, code: "usage", message: "unknown command", hint: "run akm --help" })
  it("is one JSON line for machine formats", () => {
    for (const format of ["json", "jsonl", "yaml", "md"] as const) {
      expect(JSON.parse(renderError(format, report, plain))).toEqual({ ok: false, error: { code: "usage", message: "unknown command", hint: "run akm --help" } })
    }
  })
  it("is an error line and a hint line for text", () => {
    expect(renderError("text", report, plain)).toBe("error: unknown command\nhint: run akm --help\n")
  })
  it("carries message and hint only redacted, in text and in the envelope (R-RED-1)", () => {
    const leaky = redactReport({ exit: 1, code: "not_found", message: "no item GITHUB_TOKEN=ghp_CANARYfake0000TESTtest1111EXAMPLE33yy", hint: "try sk-ant-api03-abcdefghijklmnopqrstuvwx" })
    for (const format of ["text", "json"] as const) {
      const out = renderError(format, leaky, plain)
      expect(out).not.toContain("ghp_CANARY")
      expect(out).not.toContain("sk-ant-api03")
      expect(out).toContain("[redacted:")
    }
  })
})

describe("colour", () => {
  it("only on a TTY and never with NO_COLOR", () => {
    expect(forTerminal(styleFor(true, {}).red("x"))).toBe("\u001b[31mx\u001b[0m")
    expect(renderResult("text", "x", { text: (v, style) => style.red(v) }, styleFor(true, {}))).toBe("\u001b[31mx\u001b[0m\n")
    expect(styleFor(true, { NO_COLOR: "1" }).red("x")).toBe("x")
    expect(styleFor(false, {}).red("x")).toBe("x")
  })
  it("table aligns columns ignoring colour codes", () => {
    const s = styleFor(true, {})
    const esc = String.fromCharCode(27)
    expect(forTerminal(table([[s.bold("a"), "1"], ["bbb", "2"]])).split("\n").map((l) => l.split(esc).map((part, i) => (i === 0 ? part : part.replace(/^\[\d+m/, ""))).join(""))).toEqual(["a    1", "bbb  2"])
  })
})

describe("global options before the command", () => {
  it("are moved after it", () => {
    expect(hoistGlobalOptions(["--format", "json", "info"])).toEqual(["info", "--format", "json"])
    expect(hoistGlobalOptions(["-q", "--data-dir=/d", "bundle", "list"])).toEqual(["bundle", "list", "-q", "--data-dir=/d"])
    expect(hoistGlobalOptions(["info", "--format", "json"])).toEqual(["info", "--format", "json"])
    expect(hoistGlobalOptions(["--format", "json"])).toEqual(["--format", "json"])
  })
})

describe("html", () => {
  it("uses the html view, else the text view escaped in a self-contained page", () => {
    const page = renderResult("html", value, { text: () => "<a> & b" }, plain)
    expect(page).toMatch(/^<!doctype html>/)
    expect(page).toContain("<pre>&lt;a&gt; &amp; b</pre>")
    expect(page).not.toMatch(/<script|<link|src=/)
    expect(renderResult("html", value, { text: () => "", html: () => "<p>own</p>" }, plain)).toBe("<p>own</p>\n")
  })
})

/* eslint-disable no-control-regex -- control characters are exactly what these tests look for */
describe("bundle text cannot drive the terminal (hostile text)", () => {
  const ESC = "\u001b"
  const hostile = [
    `${ESC}[31mred${ESC}[0m`, // CSI colour
    `${ESC}[2J${ESC}[H`, // clear screen
    `${ESC}]52;c;Y3VybCBldmlsfHNo${"\u0007"}`, // OSC 52 clipboard write, BEL-terminated
    `${ESC}]0;title${ESC}\\`, // OSC title, ST-terminated
    "\u009b31m", // C1 CSI
    "\u009d52;c;eA==\u009c", // C1 OSC … ST
    "over\rwrite", "back\bspace", "del\u007f", "nul\u0000"
  ]
  const anyControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

  it("neutralise leaves no control but newline and tab, and shows each as caret text", () => {
    for (const text of hostile) expect(neutralise(text), JSON.stringify(text)).not.toMatch(anyControl)
    expect(neutralise(`a${ESC}[31mb`)).toBe("a^[[31mb")
    expect(neutralise("\u009b31m")).toBe("^[[31m")
    expect(neutralise("bell\u0007 del\u007f cr\r")).toBe("bell^G del^? cr^M")
    expect(neutralise("line\n\tindented")).toBe("line\n\tindented")
  })

  it("text, md and html output and text errors carry no control from content, yet keep akm's own colours", () => {
    const style = styleFor(true, {})
    const view: View<ReadonlyArray<string>> = { text: (v, s) => v.map((t) => `${s.bold("name:")} ${t}`).join("\n"), md: (v) => v.join("\n") }
    for (const format of ["text", "md", "html"] as const) {
      const out = renderResult(format, hostile, view, style)
      expect(out.replace(/\u001b\[(?:0|1)m/g, ""), format).not.toMatch(anyControl)
    }
    expect(renderResult("text", hostile, view, style)).toContain("\u001b[1mname:\u001b[0m ^[[31mred")
    const error = renderError("text", redactReport({ exit: 1, code: "not-found", message: hostile.join(" "), hint: `${ESC}]52;c;eA==\u0007` }), style)
    expect(error.replace(/\u001b\[(?:0|2|31)m/g, "")).not.toMatch(anyControl)
    expect(error).toContain("\u001b[31merror:\u001b[0m")
  })

  it("a style marker copied into content does not become a colour", () => {
    const style = styleFor(true, {})
    const forged = style.red("x").replace(/[0-9a-f]{16}/g, "0000000000000000")
    expect(renderResult("text", forged, { text: (v) => v }, style)).not.toContain(ESC)
  })

  it("json, jsonl and yaml keep every control escaped and round-trip the value", () => {
    const value = { items: hostile }
    for (const format of ["json", "jsonl", "yaml"] as const) {
      const out = renderResult(format, value, { text: () => "" }, plain)
      expect(out.replace(/\n/g, ""), format).not.toMatch(anyControl)
      expect(format === "yaml" ? parseYaml(out) : JSON.parse(out), format).toEqual({ schemaVersion: 1, ...value })
    }
    const error = renderError("json", redactReport({ exit: 1, code: "x", message: hostile.join(" "), hint: "" }), plain)
    expect(error.trimEnd()).not.toMatch(anyControl)
    expect(JSON.parse(error).error.message).toBe(hostile.join(" "))
  })
})
