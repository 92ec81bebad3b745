import * as ValidationError from "@effect/cli/ValidationError"
import * as HelpDoc from "@effect/cli/HelpDoc"
import { Cause } from "effect"
import { describe, expect, it } from "vitest"
import { ConfigInvalid, Conflict, DatabaseTooNew, NotFound, UsageError, WorkspaceUnavailable } from "../../src/domain/Errors.js"
import { RefInvalid, RefNotFound } from "../../src/domain/Ref.js"
import { MaterializeFailed, SourceKindUnsupported } from "../../src/services/Materializer.js"
import { ExitCode, reportCause, reportError } from "../../src/cli/exitCodes.js"

describe("error → exit code (spec 09 §2, R-ARCH-4)", () => {
  const cases: ReadonlyArray<readonly [string, unknown, number, string]> = [
    ["usage", new UsageError({ message: "bad", hint: "h" }), 2, "usage"],
    ["bad ref", new RefInvalid({ input: "a//..", reason: "r", hint: "h" }), 2, "usage"],
    ["unsupported source kind", new SourceKindUnsupported({ kind: "git", hint: "h" }), 2, "usage"],
    ["not found", new NotFound({ what: "bundle", name: "x", message: "m", hint: "h" }), 1, "not_found"],
    ["ref not found", new RefNotFound({ input: "x", tried: ["a//x"], hint: "h" }), 1, "not_found"],
    ["conflict", new Conflict({ message: "m", hint: "h" }), 1, "conflict"],
    ["materialize", new MaterializeFailed({ bundle: "b", source: "s", reason: "r", hint: "h" }), 1, "materialize_failed"],
    ["config", new ConfigInvalid({ file: "/c/config.yaml", path: "search.limit", reason: "r", hint: "h" }), 78, "config"],
    ["db too new", new DatabaseTooNew({ path: "/d/state.db", unknown: ["9999_x"], hint: "h" }), 78, "database_too_new"],
    ["workspace", new WorkspaceUnavailable({ path: "/d", reason: "r", hint: "h" }), 78, "workspace_unavailable"]
  ]
  it.each(cases)("%s", (_label, error, exit, code) => {
    const report = reportError(error)
    expect(report.exit).toBe(exit)
    expect(report.code).toBe(code)
    expect(report.message.length).toBeGreaterThan(0)
    expect(report.hint).toBe("h")
  })

  it("names the file, the key path and the reason of a config error", () => {
    const report = reportError(new ConfigInvalid({ file: "/c/config.yaml", path: "search.limit (line 3)", reason: "expected a number", hint: "h" }))
    expect(report.message).toContain("/c/config.yaml")
    expect(report.message).toContain("search.limit (line 3)")
    expect(report.message).toContain("expected a number")
  })

  it("maps @effect/cli validation errors to usage (2), not its default 1", () => {
    const error = ValidationError.commandMismatch(HelpDoc.p("Invalid subcommand"))
    expect(reportError(error)).toMatchObject({ exit: ExitCode.usage, code: "usage" })
  })

  it("treats an unknown error as a bug (70) with a hint to report it", () => {
    const report = reportError(new Error("boom"))
    expect(report).toMatchObject({ exit: 70, code: "internal", message: "boom" })
    expect(report.hint).toMatch(/bug/)
  })

  it("maps defects to 70 and interruption to 130", () => {
    expect(reportCause(Cause.die(new Error("x"))).exit).toBe(70)
    expect(reportCause(Cause.interrupt("fiber" as never)).exit).toBe(130)
    expect(reportCause(Cause.fail(new UsageError({ message: "m", hint: "h" }))).exit).toBe(2)
  })
})
