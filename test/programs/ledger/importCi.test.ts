import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { parseRecord } from "../../../src/domain/ledger/index.js"
import { AkmTest } from "../../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../../src/programs/bundle/add.js"
import { importCi } from "../../../src/programs/ledger/importCi.js"
import { recordFailureOccurrence } from "../../../src/programs/ledger/record.js"
import { caller, failure, folder } from "../writeFixtures.js"

const fixtures = path.join(import.meta.dirname, "../../fixtures/ledger-ci")

/** A project bundle "app" over a fresh folder; yields its root. */
const project = Effect.gen(function* () {
  const root = folder({ "README.md": "# app\n", ".ai/config.json": "{}\n" })
  yield* bundleAdd({ source: root, name: "app", adapter: "project", writable: true, ...caller })
  return root
})

const failureRecords = (root: string) => {
  const dir = path.join(root, ".ai/ledger/failure")
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir).sort().map((name) => {
    const parsed = parseRecord(fs.readFileSync(path.join(dir, name), "utf8"))
    if (parsed._tag === "Left") throw new Error(parsed.left.message)
    return parsed.right
  })
}

describe("ledger import-ci (spec 08 §2, R-LED-4)", () => {
  it.effect("a JUnit file with one failing test: a fingerprint hit appends a ci occurrence; importing it again adds nothing", () =>
    Effect.gen(function* () {
      const root = yield* project
      // Recorded once by hand, at another line of the same migration (R-LED-2 folds the line number).
      const first = yield* recordFailureOccurrence({ bundle: "app", fields: { module: "src/db", operation: "migrate src/db/0042.sql:93", error_class: "LockTimeout", symptom: "migration hung, then LockTimeout" }, source: "self-report", date: "2026-11-29" })
      const result = yield* importCi({ file: path.join(fixtures, "one-failure.xml"), bundle: "app", ...caller })
      expect(result).toMatchObject({ bundle: "app", format: "junit", seen: 3, created: 0, appended: 1, unchanged: 0 })
      expect(result.failures).toEqual([{ id: first.id, date: "2026-11-30", module: "src/db", operation: "migrate src/db/0042.sql:17", errorClass: "LockTimeout", created: false, changed: true, occurrences: 2 }])
      const [record] = failureRecords(root)
      expect(record!.occurrences).toEqual([
        { date: "2026-11-29", source: "self-report" },
        { date: "2026-11-30", source: "ci", note: 'CI: migrate src/db/0042.sql:17 — LockTimeout: could not obtain lock on relation "users" after 5000ms' }
      ])
      // The symptom stays as first seen.
      expect(record!.fields["symptom"]).toBe("migration hung, then LockTimeout")
      const again = yield* importCi({ file: path.join(fixtures, "one-failure.xml"), bundle: "app", ...caller })
      expect(again).toMatchObject({ created: 0, appended: 0, unchanged: 1 })
      expect(failureRecords(root)[0]!.occurrences).toHaveLength(2)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a miss creates a failure record whose symptom is the report's message; every failure of the report lands", () =>
    Effect.gen(function* () {
      const root = yield* project
      const result = yield* importCi({ file: path.join(fixtures, "mixed.xml"), bundle: "app", ...caller })
      expect(result).toMatchObject({ seen: 5, created: 3, appended: 0 })
      const records = failureRecords(root)
      expect(records).toHaveLength(3)
      const socket = records.find((r) => r.fields["error_class"] === "java.net.SocketException")!
      expect(socket).toMatchObject({ kind: "failure", sources: ["ci"], occurrences: [{ date: "2026-11-28", source: "ci" }] })
      expect(socket.fields).toMatchObject({ module: "com.example.billing.QuotaTest", operation: "concurrent update keeps both writes", symptom: "Connection reset by peer" })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a secret in a failure message (a .env value, a token shape) never reaches the record or the result", () =>
    Effect.gen(function* () {
      const root = yield* project
      fs.writeFileSync(path.join(root, ".env"), "DB_PASSWORD=Pl4nted-S3cret-Value\n")
      const report = path.join(folder(), "secret.xml")
      const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
      fs.writeFileSync(report, `<testsuite timestamp="2026-11-30T10:00:00Z"><testcase classname="src/db" name="connect with Pl4nted-S3cret-Value"><failure type="AuthError" message="login failed for Pl4nted-S3cret-Value with ${token}"/></testcase></testsuite>`)
      const result = yield* importCi({ file: report, bundle: "app", ...caller })
      expect(JSON.stringify(result)).not.toContain("Pl4nted-S3cret-Value")
      const written = fs.readdirSync(path.join(root, ".ai/ledger/failure")).map((name) => fs.readFileSync(path.join(root, ".ai/ledger/failure", name), "utf8")).join("\n")
      expect(written).toContain("AuthError")
      expect(written).not.toContain("Pl4nted-S3cret-Value")
      expect(written).not.toContain(token)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("the TSV form imports every row; a bad file (not XML, bad TSV row, too big) writes nothing", () =>
    Effect.gen(function* () {
      const root = yield* project
      expect(yield* importCi({ file: path.join(fixtures, "report.tsv"), bundle: "app", ...caller })).toMatchObject({ format: "tsv", seen: 2, created: 2 })
      const before = failureRecords(root)
      expect(failure(yield* Effect.exit(importCi({ file: path.join(fixtures, "not-xml.xml"), bundle: "app", ...caller })))).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("is not XML") })
      expect(failure(yield* Effect.exit(importCi({ file: path.join(fixtures, "bad.tsv"), bundle: "app", ...caller })))).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("nothing was imported") })
      expect(failure(yield* Effect.exit(importCi({ file: path.join(fixtures, "one-failure.xml"), bundle: "app", maxBytes: 64, ...caller })))).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("over the limit") })
      expect(failureRecords(root)).toEqual(before)
    }).pipe(Effect.provide(AkmTest)))
})
