import { describe, expect, it } from "vitest"
import { WorkspaceUnavailable } from "../../src/domain/Errors.js"
import { reportError } from "../../src/cli/exitCodes.js"
import { damagedDatabase } from "../../src/layers/sqlite/Heal.js"

// R-DB-1: a damaged state.db or logs.db is its own error code (exit 78), with the restore steps as the hint.

describe("damaged database → exit code", () => {
  it("is database_damaged (78), naming the file and what it holds", () => {
    const cause = Object.assign(new Error("file is not a database"), { code: "SQLITE_NOTADB" })
    const report = reportError(damagedDatabase("/d/state.db", cause))
    expect(report).toMatchObject({ exit: 78, code: "database_damaged" })
    expect(report.message).toBe(
      "/d/state.db: the database is damaged (file is not a database); it holds learned utility, feedback, usage events, proposals with their changes and outcomes, and workspace events, which rebuilding it would lose, so akm leaves it as it is"
    )
    expect(report.hint).toContain("`sqlite3 /d/state.db .recover | sqlite3 /d/state.db.recovered`")
  })

  it("quotes a path with spaces in the recover command", () => {
    const report = reportError(damagedDatabase("/my data/logs.db", new Error("database disk image is malformed")))
    expect(report.hint).toContain("`sqlite3 '/my data/logs.db' .recover | sqlite3 '/my data/logs.db.recovered'`")
    expect(report.hint).toContain("logs are purgeable")
  })

  it("any other unavailable workspace keeps workspace_unavailable", () => {
    expect(reportError(new WorkspaceUnavailable({ path: "/d", reason: "r", hint: "h" }))).toMatchObject({ exit: 78, code: "workspace_unavailable" })
  })
})
