import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseJunit } from "../../../src/domain/ledger/junit.js"

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "../../fixtures/ledger-ci", name), "utf8")
const parsed = (name: string, day = "2026-12-01") => {
  const result = parseJunit(fixture(name), name, day)
  if (result._tag !== "Parsed") throw new Error(`expected a parsed report, got ${result._tag}`)
  return result
}

describe("JUnit reports → failure observations (spec 08 §2, ledger import-ci)", () => {
  it("one failing testcase: classname → module, name → operation, type → error class, the suite's timestamp → day", () => {
    const result = parsed("one-failure.xml")
    expect(result.testcases).toBe(3)
    expect(result.observations).toEqual([
      {
        date: "2026-11-30",
        module: "src/db",
        operation: "migrate src/db/0042.sql:17",
        errorClass: "LockTimeout",
        message: 'LockTimeout: could not obtain lock on relation "users" after 5000ms',
        source: "ci",
        origin: "one-failure.xml"
      }
    ])
  })

  it("failures and errors count, skipped and passing testcases do not; without a type the message's first line is the error class", () => {
    const result = parsed("mixed.xml")
    expect(result.testcases).toBe(5)
    expect(result.observations.map((o) => [o.module, o.operation, o.errorClass, o.date])).toEqual([
      ["com.example.billing.InvoiceTest", "totals include tax", "org.opentest4j.AssertionFailedError", "2026-11-28"],
      ["com.example.billing.InvoiceTest", "rounds half up", "Rounding mismatch on line 3", "2026-11-28"],
      ["com.example.billing.QuotaTest", "concurrent update keeps both writes", "java.net.SocketException", "2026-11-28"]
    ])
    // Entities are decoded; the element's text is the message when there is no message attribute.
    expect(result.observations[0]!.message).toBe("expected: <119.00> but was: <100.00>")
    expect(result.observations[1]!.message).toBe("Rounding mismatch on line 3\nsecond line of detail")
  })

  it("nested suites: the nearest timestamp dates a testcase, else the outer one, else the caller's day; a missing classname falls back to the suite's name", () => {
    const result = parsed("nested.xml", "2026-12-01")
    expect(result.testcases).toBe(4)
    expect(result.observations.map((o) => [o.module, o.operation, o.errorClass, o.date])).toEqual([
      ["pkg/outer", "outer failure", "KeyError", "2026-11-21"],
      ["pkg/inner", "deep failure", "ValueError", "2026-11-22"],
      ["inner-undated", "no classname", "TimeoutError", "2026-11-21"]
    ])
    const undated = parseJunit('<testsuite name="s"><testcase classname="m" name="t"><failure type="E"/></testcase></testsuite>', "r.xml", "2026-12-01")
    expect(undated._tag === "Parsed" && undated.observations[0]!.date).toBe("2026-12-01")
  })

  it("a single testcase and a single suite parse like arrays; an empty <failure/> is still a failure", () => {
    const result = parseJunit('<testsuites><testsuite><testcase classname="m" name="t"><failure/></testcase></testsuite></testsuites>', "r.xml", "2026-12-01")
    expect(result).toMatchObject({ _tag: "Parsed", testcases: 1, observations: [{ module: "m", operation: "t", errorClass: "failure", message: "failure" }] })
  })

  it("a long message is clipped, never dropped", () => {
    const long = "x".repeat(10_000)
    const result = parseJunit(`<testsuite><testcase classname="m" name="t"><failure type="E" message="${long}"/></testcase></testsuite>`, "r.xml", "2026-12-01")
    const message = result._tag === "Parsed" ? result.observations[0]!.message : ""
    expect(message.length).toBeLessThan(4100)
    expect(message).toContain("6000 more characters")
  })

  it("nested entity definitions (a billion-laughs report) do not expand into a huge message", () => {
    const entities = ['<!ENTITY a0 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx">', ...Array.from({ length: 11 }, (_, i) => `<!ENTITY a${i + 1} "${`&a${i};`.repeat(10)}">`)]
    const xml = `<?xml version="1.0"?><!DOCTYPE t [${entities.join("")}]><testsuite><testcase classname="m" name="t"><failure type="E" message="&a11;"/></testcase></testsuite>`
    const result = parseJunit(xml, "bomb.xml", "2026-12-01")
    if (result._tag === "Parsed") expect(result.observations.every((o) => o.message.length <= 4100)).toBe(true)
    else expect(result._tag).toBe("NotXml")
  })

  it("a file that is not XML, or cut short, is reported with its line and column; XML of another kind names its root", () => {
    expect(parseJunit(fixture("not-xml.xml"), "not-xml.xml", "2026-12-01")).toMatchObject({ _tag: "NotXml", problem: { line: 1, column: 1 } })
    expect(parseJunit(fixture("broken.xml"), "broken.xml", "2026-12-01")).toMatchObject({ _tag: "NotXml", problem: { line: 5, message: expect.stringContaining("failure") } })
    expect(parseJunit("", "empty.xml", "2026-12-01")._tag).toBe("NotXml")
    expect(parseJunit(fixture("not-junit.xml"), "not-junit.xml", "2026-12-01")).toEqual({ _tag: "NotJunit", root: "project" })
  })
})
