import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import { DatabaseTooNew } from "../../src/domain/Errors.js"
import { immediateTransaction, openDatabase, type Migrations } from "../../src/layers/sqlite/Database.js"
import { tempDir } from "./tempDir.js"

/** R-DB-1: how every one of the three databases is opened, migrated and written. */

const exec = (statement: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement).raw)

const baseMigrations: Migrations = {
  "0001_items": exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
}
const laterMigrations: Migrations = {
  ...baseMigrations,
  "0002_tags": exec("CREATE TABLE tags (item INTEGER NOT NULL REFERENCES items (id), tag TEXT NOT NULL)")
}

/** A second connection, as another akm process would hold. */
const withRaw = <A>(file: string, use: (db: Database.Database) => A): A => {
  const db = new Database(file)
  try {
    return use(db)
  } finally {
    db.close()
  }
}

const tables = (file: string): ReadonlyArray<string> =>
  withRaw(file, (db) => (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name))

const recorded = (file: string): ReadonlyArray<string> =>
  withRaw(file, (db) => (db.prepare("SELECT migration_id AS id, name FROM akm_migrations ORDER BY migration_id").all() as Array<{ id: number; name: string }>).map((row) => `${row.id}_${row.name}`))

const itemNames = (file: string): ReadonlyArray<string> =>
  withRaw(file, (db) => (db.prepare("SELECT name FROM items ORDER BY id").all() as Array<{ name: string }>).map((row) => row.name))

const dbFile = (name: string) => Effect.map(tempDir(name), (dir) => path.join(dir, "test.db"))

class Refused {
  readonly _tag = "Refused"
}

describe("openDatabase", () => {
  it.scoped("opens with WAL, a busy timeout and foreign keys on", () =>
    Effect.gen(function* () {
      const sql = yield* openDatabase({ filename: yield* dbFile("db-pragmas"), migrations: laterMigrations })
      expect(yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`).toEqual([{ journal_mode: "wal" }])
      expect(yield* sql<{ timeout: number }>`PRAGMA busy_timeout`).toEqual([{ timeout: 5000 }])
      expect(yield* sql<{ foreign_keys: number }>`PRAGMA foreign_keys`).toEqual([{ foreign_keys: 1 }])
      // Foreign keys are enforced, not just declared.
      const orphan = yield* Effect.exit(sql`INSERT INTO tags (item, tag) VALUES (42, 'x')`)
      expect(Exit.isFailure(orphan)).toBe(true)
    }))

  it.scoped("records the migrations it ran in akm_migrations, in order", () =>
    Effect.gen(function* () {
      const file = yield* dbFile("db-migrations")
      yield* Effect.scoped(openDatabase({ filename: file, migrations: laterMigrations }))
      expect(recorded(file)).toEqual(["1_items", "2_tags"])
      expect(tables(file)).toEqual(["akm_migrations", "items", "tags"])
    }))

  it.scoped("reopening is idempotent, and a newer akm runs only the migrations that are new", () =>
    Effect.gen(function* () {
      const file = yield* dbFile("db-reopen")
      yield* Effect.scoped(Effect.flatMap(openDatabase({ filename: file, migrations: baseMigrations }), (sql) => sql`INSERT INTO items (name) VALUES ('kept')`))
      yield* Effect.scoped(openDatabase({ filename: file, migrations: baseMigrations }))
      expect(recorded(file)).toEqual(["1_items"])

      const sql = yield* openDatabase({ filename: file, migrations: laterMigrations })
      expect(recorded(file)).toEqual(["1_items", "2_tags"])
      expect(yield* sql<{ name: string }>`SELECT name FROM items`).toEqual([{ name: "kept" }])
    }))

  it.scoped("refuses a database with a migration it does not know, naming it, and runs nothing", () =>
    Effect.gen(function* () {
      const file = yield* dbFile("db-too-new")
      yield* Effect.scoped(openDatabase({ filename: file, migrations: baseMigrations }))
      withRaw(file, (db) => db.prepare("INSERT INTO akm_migrations (migration_id, name) VALUES (9999, 'from_the_future')").run())
      const before = tables(file)

      const error = yield* Effect.flip(openDatabase({ filename: file, migrations: laterMigrations }))
      expect(error).toBeInstanceOf(DatabaseTooNew)
      expect(error).toMatchObject({ _tag: "DatabaseTooNew", path: file, unknown: ["9999_from_the_future"] })
      expect(error.message).toContain("9999_from_the_future")
      expect(error.hint).not.toBe("")
      // 0002_tags was pending, but nothing ran against the newer db.
      expect(tables(file)).toEqual(before)
      expect(recorded(file)).toEqual(["1_items", "9999_from_the_future"])
    }))

  it.scoped("a missing directory is created (index.db may be opened before init)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("db-missing-dir")
      const file = path.join(dir, "no", "such", "dir", "test.db")
      yield* openDatabase({ filename: file, migrations: baseMigrations })
      expect(fs.existsSync(file)).toBe(true)
    }))

  it.scoped("a file that is not a database fails as WorkspaceUnavailable naming the file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("db-unopenable")
      const garbage = path.join(dir, "garbage.db")
      fs.writeFileSync(garbage, "this is not a database, just text long enough to have a header".repeat(20))
      for (const file of [garbage]) {
        const error = yield* Effect.flip(openDatabase({ filename: file, migrations: baseMigrations }))
        expect(error).toMatchObject({ _tag: "WorkspaceUnavailable", path: file })
        expect(error.message).toContain(file)
      }
    }))
})

describe("immediateTransaction", () => {
  it.scoped("commits on success", () =>
    Effect.gen(function* () {
      const file = yield* dbFile("txn-commit")
      const sql = yield* openDatabase({ filename: file, migrations: baseMigrations })
      const result = yield* immediateTransaction(sql, Effect.zipRight(sql`INSERT INTO items (name) VALUES ('a')`, Effect.succeed("done")))
      expect(result).toBe("done")
      expect(itemNames(file)).toEqual(["a"])
    }))

  it.scoped("rolls back on failure and returns the failure", () =>
    Effect.gen(function* () {
      const file = yield* dbFile("txn-rollback")
      const sql = yield* openDatabase({ filename: file, migrations: baseMigrations })
      const failed = yield* Effect.flip(
        immediateTransaction(sql, Effect.zipRight(sql`INSERT INTO items (name) VALUES ('b')`, Effect.fail(new Refused())))
      )
      expect(failed).toBeInstanceOf(Refused)
      expect(itemNames(file)).toEqual([])
      // The connection is usable afterwards: the transaction really ended.
      yield* immediateTransaction(sql, sql`INSERT INTO items (name) VALUES ('c')`)
      expect(itemNames(file)).toEqual(["c"])
    }))

  it.scoped("rolls back when the effect dies", () =>
    Effect.gen(function* () {
      const file = yield* dbFile("txn-die")
      const sql = yield* openDatabase({ filename: file, migrations: baseMigrations })
      const exit = yield* Effect.exit(immediateTransaction(sql, Effect.zipRight(sql`INSERT INTO items (name) VALUES ('d')`, Effect.die("boom"))))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(itemNames(file)).toEqual([])
    }))

  it.scoped("takes the write lock before its first statement", () =>
    Effect.gen(function* () {
      const file = yield* dbFile("txn-lock")
      const sql = yield* openDatabase({ filename: file, migrations: baseMigrations })
      // Inside the transaction, before it writes anything, another writer is already shut out.
      const otherWriter = yield* immediateTransaction(
        sql,
        Effect.sync(() =>
          withRaw(file, (db) => {
            db.pragma("busy_timeout = 0")
            try {
              db.exec("BEGIN IMMEDIATE")
              db.exec("ROLLBACK")
              return "got the lock"
            } catch (error) {
              return (error as { code?: string }).code
            }
          })
        )
      )
      expect(otherWriter).toBe("SQLITE_BUSY")
    }))

  it.live("waits on busy_timeout while another process holds the write lock, then succeeds", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = yield* dbFile("txn-wait")
        const sql = yield* openDatabase({ filename: file, migrations: baseMigrations })
        const child = yield* holdWriteLock(file, 300)

        const seen = yield* immediateTransaction(
          sql,
          Effect.gen(function* () {
            const rows = yield* sql<{ name: string }>`SELECT name FROM items ORDER BY id`
            yield* sql`INSERT INTO items (name) VALUES ('parent')`
            return rows.map((row) => row.name)
          })
        )
        // The write lock was granted only after the other process committed: its row was visible.
        expect(seen).toEqual(["child"])
        expect(yield* child.exited).toBe(0)
        expect(itemNames(file)).toEqual(["child", "parent"])
      })
    ))
})

const betterSqlite = createRequire(import.meta.url).resolve("better-sqlite3")

/** Another process: BEGIN IMMEDIATE, write a row, say "locked", hold the lock for `millis`, commit. */
const holderScript = `
const Database = require(process.argv[1])
const db = new Database(process.argv[2])
db.exec("BEGIN IMMEDIATE")
db.prepare("INSERT INTO items (name) VALUES ('child')").run()
process.stdout.write("locked\\n")
setTimeout(() => { db.exec("COMMIT"); db.close() }, Number(process.argv[3]))
`

const holdWriteLock = (file: string, millis: number) =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, ["-e", holderScript, betterSqlite, file, String(millis)], { stdio: ["ignore", "pipe", "inherit"] })),
      (proc) => Effect.sync(() => proc.exitCode === null && proc.kill())
    )
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
    const locked = new Promise<void>((resolve, reject) => {
      let out = ""
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes("locked")) resolve()
      })
      void exited.then((code) => reject(new Error(`the lock holder exited with ${code} before taking the lock`)))
    })
    yield* Effect.promise(() => locked)
    return { exited: Effect.promise(() => exited) }
  })
