import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseCiTsv } from "../../../src/domain/ledger/ciTsv.js"

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "../../fixtures/ledger-ci", name), "utf8")

describe("the TSV form of import-ci (date, module, operation, error_class, message)", () => {
  it("reads rows after an optional header, skipping blank and # lines; the message may be left out", () => {
    expect(parseCiTsv(fixture("report.tsv"), "report.tsv")).toEqual({
      _tag: "Parsed",
      observations: [
        { date: "2026-11-30", module: "src/db", operation: "migrate src/db/0042.sql:93", errorClass: "LockTimeout", message: "could not obtain lock after 7000ms", source: "ci", origin: "report.tsv:2" },
        { date: "2026-11-29", module: "src/api", operation: "GET /users", errorClass: "Http500", message: "Http500", source: "ci", origin: "report.tsv:5" }
      ]
    })
  })

  it("a file without a header is all data", () => {
    expect(parseCiTsv(fixture("headerless.tsv"), "h.tsv")).toMatchObject({ _tag: "Parsed", observations: [{ module: "src/db", origin: "h.tsv:1" }] })
  })

  it("every bad line is reported with its number, and no row is kept", () => {
    expect(parseCiTsv(fixture("bad.tsv"), "bad.tsv")).toEqual({
      _tag: "BadLines",
      problems: [
        { line: 2, message: "'30/11/2026' is not an ISO date (YYYY-MM-DD)" },
        { line: 3, message: "3 columns where 5 are expected (date, module, operation, error_class, message), separated by tabs" },
        { line: 4, message: "module is empty" }
      ]
    })
  })

  it("a header naming other columns is refused; a comma-separated file is caught by its column count", () => {
    expect(parseCiTsv("date\tmodule\top\terror_class\tmessage\n", "x.tsv")).toMatchObject({ _tag: "BadLines", problems: [{ line: 1, message: expect.stringContaining("the header must be date, module, operation, error_class, message") }] })
    expect(parseCiTsv("2026-11-30,src/db,migrate,LockTimeout,boom\n", "x.tsv")).toMatchObject({ _tag: "BadLines", problems: [{ line: 1, message: expect.stringContaining("1 column where 5") }] })
    expect(parseCiTsv("2026-02-30\tm\to\tE\n", "x.tsv")).toMatchObject({ _tag: "BadLines", problems: [{ line: 1 }] })
  })
})
