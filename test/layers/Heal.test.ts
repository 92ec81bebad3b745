import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, TestClock } from "effect"
import { WorkspaceUnavailable } from "../../src/domain/Errors.js"
import { openDatabase, type Migrations } from "../../src/layers/sqlite/Database.js"
import { isDamage } from "../../src/layers/sqlite/Heal.js"
import { tempDir } from "./tempDir.js"

/** R-DB-1, spec 01 §4: how opening treats a file SQLite calls damaged, disposable or not. */

const migrations: Migrations = {
  "0001_items": Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)").raw)
}

const GARBAGE = "this is not a database, just text long enough to have a header".repeat(40)

const disposable = (warnings: Array<string>) => ({ warn: (message: string) => Effect.sync(() => void warnings.push(message)) })

describe("opening a damaged database", () => {
  it.scoped("a disposable db over garbage is moved to <file>.corrupt-<Clock time>, opened afresh, with one warning", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heal-garbage")
      const file = path.join(dir, "index.db")
      fs.writeFileSync(file, GARBAGE)
      yield* TestClock.setTime(Date.parse("2031-02-03T04:05:06.789Z"))
      const warnings: Array<string> = []
      const sql = yield* openDatabase({ filename: file, migrations, disposable: disposable(warnings) })
      yield* sql`INSERT INTO items (name) VALUES ('fresh')`
      const aside = path.join(dir, "index.db.corrupt-2031-02-03T04-05-06-789Z")
      expect(fs.readFileSync(aside, "utf8")).toBe(GARBAGE)
      expect(warnings).toEqual([`warning: ${file} was unusable (file is not a database); moved it to ${aside} and rebuilding the index`])
    }))

  it.scoped("a truncated disposable db is moved aside too", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heal-truncated")
      const file = path.join(dir, "index.db")
      const db = new Database(file)
      db.exec("CREATE TABLE filler (x TEXT); CREATE TABLE akm_migrations (migration_id INTEGER PRIMARY KEY, created_at TEXT, name TEXT)")
      const insert = db.prepare("INSERT INTO filler (x) VALUES (?)")
      db.transaction(() => {
        for (let i = 0; i < 2000; i++) insert.run(`row ${i} ${"x".repeat(200)}`)
      })()
      db.exec("CREATE TABLE later (y TEXT)")
      db.close()
      fs.truncateSync(file, 4096)
      const warnings: Array<string> = []
      const sql = yield* openDatabase({ filename: file, migrations, disposable: disposable(warnings) })
      yield* sql`INSERT INTO items (name) VALUES ('fresh')`
      expect(warnings).toEqual([expect.stringMatching(/malformed/)])
      expect(fs.readdirSync(dir).filter((name) => name.startsWith("index.db.corrupt-"))).toHaveLength(1)
    }))

  it.scoped("a disposable db with someone else's tables (a schema mismatch) is moved aside", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heal-foreign")
      const file = path.join(dir, "index.db")
      const db = new Database(file)
      db.exec("CREATE TABLE items (other TEXT)")
      db.close()
      const warnings: Array<string> = []
      const sql = yield* openDatabase({ filename: file, migrations, disposable: disposable(warnings) })
      yield* sql`INSERT INTO items (name) VALUES ('ours')`
      expect(warnings).toEqual([expect.stringContaining("its tables do not match this akm")])
    }))

  it.scoped("a durable db over garbage is refused as damaged, naming what it holds, and left untouched", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heal-durable")
      const file = path.join(dir, "state.db")
      fs.writeFileSync(file, GARBAGE)
      const error = yield* Effect.flip(openDatabase({ filename: file, migrations }))
      expect(error).toBeInstanceOf(WorkspaceUnavailable)
      expect(error).toMatchObject({ path: file, damaged: { loses: expect.stringContaining("learned utility") } })
      expect(error.message).toContain(`${file}: the database is damaged (file is not a database)`)
      expect((error as WorkspaceUnavailable).hint).toContain(`sqlite3 ${file} .recover | sqlite3 ${file}.recovered`)
      expect(fs.readdirSync(dir)).toEqual(["state.db"])
      expect(fs.readFileSync(file, "utf8")).toBe(GARBAGE)
    }))

  it("damage is told from other failures by SQLite's code, through wrapping causes", () => {
    const sqlite = (code: string) => Object.assign(new Error(code), { code })
    expect(isDamage(sqlite("SQLITE_NOTADB"))).toBe(true)
    expect(isDamage({ cause: sqlite("SQLITE_CORRUPT") })).toBe(true)
    expect(isDamage({ cause: sqlite("SQLITE_CORRUPT_INDEX") })).toBe(true)
    expect(isDamage(sqlite("SQLITE_BUSY"))).toBe(false)
    expect(isDamage(sqlite("SQLITE_CANTOPEN"))).toBe(false)
    expect(isDamage(undefined)).toBe(false)
  })
})
