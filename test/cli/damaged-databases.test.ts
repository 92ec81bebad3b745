import Database from "better-sqlite3"
import { closeSync, copyFileSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeEach, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { notesFiles } from "../support/indexedWorkspace.js"

// R-DB-1, spec 01 §4: a disposable index.db never locks a user out; a damaged state.db or logs.db is reported
// honestly (named, what it holds, how to restore it), never rebuilt or deleted, and `akm health` exits 4 on it.

const garbage = (bytes: number) => Buffer.from(Array.from({ length: bytes }, (_, i) => (i * 7919 + 13) % 251))

const writeOver = (file: string) => {
  for (const suffix of ["-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true })
  writeFileSync(file, garbage(20_000))
}

describe("damaged databases", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const indexDb = join(workspace.cacheDir, "index.db")
  const stateDb = join(workspace.dataDir, "state.db")
  const logsDb = join(workspace.dataDir, "logs.db")
  const moved = () => readdirSync(workspace.cacheDir).filter((name) => /^index\.db\.corrupt-[\dT-]+Z$/.test(name))

  beforeEach(async () => {
    if (statSync(join(workspace.dataDir, "akm.lock"), { throwIfNoEntry: false }) !== undefined) return
    const notes = workspace.folder("notes", notesFiles)
    const added = await workspace.run(["bundle", "add", notes, "--name", "notes", "--quiet"])
    expect(added.code, added.stderr).toBe(0)
    // A first `akm init` creates logs.db too.
    expect((await workspace.run(["init"])).code).toBe(0)
  })

  it("garbage over index.db: it is moved aside with a one-line warning and the next search works", async () => {
    writeOver(indexDb)
    const before = moved().length
    const search = await workspace.run(["search", "deploy", "--format", "json"])
    expect(search.code, search.stderr).toBe(0)
    expect(search.json().total).toBeGreaterThan(0)
    expect(search.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^warning: .*index\.db was unusable \(file is not a database\); moved it to .*index\.db\.corrupt-\d{4}-\d\d-\d\dT[\d-]+Z and rebuilding the index$/)])
    expect(moved().length).toBe(before + 1)
    // The moved file is the garbage, kept for inspection.
    expect(readFileSync(join(workspace.cacheDir, moved().at(-1)!)).equals(garbage(20_000))).toBe(true)
    // And the command after that is quiet again.
    const again = await workspace.run(["search", "deploy", "--format", "json"])
    expect([again.code, again.stderr]).toEqual([0, ""])
  })

  it("garbage over index.db does not break `akm init`, which used to loop back to itself", async () => {
    writeOver(indexDb)
    const init = await workspace.run(["init", "--format", "json"])
    expect(init.code, init.stdout + init.stderr).toBe(0)
    expect(init.json().databases.index.integrity).toBe("ok")
    expect(init.stderr).toContain("index.db was unusable")
  })

  it("a truncated index.db heals the same way", async () => {
    expect((await workspace.run(["index", "--quiet"])).code).toBe(0)
    rmSync(`${indexDb}-wal`, { force: true })
    rmSync(`${indexDb}-shm`, { force: true })
    truncateSync(indexDb, Math.floor(statSync(indexDb).size / 3))
    const search = await workspace.run(["search", "deploy", "--format", "json"])
    expect(search.code, search.stderr).toBe(0)
    expect(search.json().total).toBeGreaterThan(0)
  })

  it("damage found after index.db opened fine (a malformed page deep in it): moved aside at once, the next command rebuilds", async () => {
    const many = workspace.folder("many", Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`n${i}.md`, `# note ${i}\n\nhello world lorem ipsum ${i}\n`])))
    expect((await workspace.run(["bundle", "add", many, "--name", "many", "--quiet"])).code).toBe(0)
    const db = new Database(indexDb)
    db.pragma("wal_checkpoint(TRUNCATE)")
    // Every leaf page of the items' rows, headers and cells both, none of the tables' roots: opening reads
    // page 1 and the roots, so it succeeds; the search's reads of the rows do not.
    const pageSize = db.pragma("page_size", { simple: true }) as number
    const leaves = db.prepare("SELECT pageno FROM dbstat WHERE name = 'documents' AND pagetype = 'leaf' AND path <> '/'").pluck().all() as Array<number>
    db.close()
    expect(leaves.length).toBeGreaterThan(1)
    const fd = openSync(indexDb, "r+")
    for (const page of leaves) writeSync(fd, garbage(pageSize), 0, pageSize, (page - 1) * pageSize)
    closeSync(fd)
    const before = moved().length
    const failed = await workspace.run(["search", "hello", "--format", "json"])
    expect(failed.code, failed.stdout.slice(0, 200)).toBe(78)
    expect(JSON.parse(failed.stderr).error).toMatchObject({
      message: expect.stringMatching(/index\.db: the index is damaged \(.+\); moved it to .*index\.db\.corrupt-/),
      hint: expect.stringContaining("run the command again")
    })
    expect(moved().length).toBe(before + 1)
    const again = await workspace.run(["search", "hello", "--format", "json"])
    expect(again.code, again.stderr).toBe(0)
    expect(again.json().total).toBeGreaterThan(0)
    expect((await workspace.run(["bundle", "remove", "many", "--quiet"])).code).toBe(0)
  })

  it("learned state in state.db survives an index.db heal", async () => {
    const hit = (await workspace.run(["search", "deploy", "--format", "json"])).json().hits[0].ref as string
    expect((await workspace.run(["feedback", hit, "--positive", "--quiet"])).code).toBe(0)
    const state = readFileSync(stateDb)
    writeOver(indexDb)
    expect((await workspace.run(["search", "deploy", "--quiet"])).code).toBe(0)
    expect(readFileSync(stateDb).length).toBeGreaterThanOrEqual(state.length)
    expect((await workspace.run(["health", "--format", "json"])).json().attention).toEqual([])
  })

  for (const damage of ["garbage", "truncated"] as const) {
    it(`a ${damage} state.db: commands name it, what it holds and how to restore it; it is never rebuilt; health exits 4`, async () => {
      const ref = (await workspace.run(["search", "deploy", "--format", "json"])).json().hits[0].ref as string
      const backup = join(workspace.root, "state.db.backup")
      copyFileSync(stateDb, backup)
      try {
        if (damage === "garbage") writeOver(stateDb)
        else {
          for (const suffix of ["-wal", "-shm"]) rmSync(`${stateDb}${suffix}`, { force: true })
          // Past the header page: SQLite opens it and then finds its tables gone.
          truncateSync(stateDb, 4096)
        }
        const damaged = readFileSync(stateDb)
        for (const args of [["feedback", ref, "--positive"], ["init"], ["proposal", "list"]]) {
          const r = await workspace.run([...args, "--format", "json"])
          expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(78)
          const error = JSON.parse(r.stderr).error
          expect(error.code).toBe("database_damaged")
          expect(error.message).toContain(stateDb)
          expect(error.message).toContain("learned utility, feedback")
          expect(error.hint).toContain("backup copy")
          expect(error.hint).toContain(".recover | sqlite3")
        }
        const health = await workspace.run(["health", "--format", "json"])
        expect(health.code, health.stderr).toBe(4)
        const result = health.json()
        expect(result.attention).toEqual([expect.objectContaining({ code: "database-damaged", message: expect.stringContaining(stateDb) })])
        expect(result.databases.find((d: { name: string }) => d.name === "state.db")).toMatchObject({ damaged: true })
        expect(result.proposals.pending).toBeNull()
        const text = await workspace.run(["health", "--format", "text"])
        expect(text.code).toBe(4)
        expect(text.stdout).not.toContain("nothing needs attention")
        // Never rebuilt nor deleted.
        expect(readFileSync(stateDb).equals(damaged)).toBe(true)
      } finally {
        for (const suffix of ["-wal", "-shm"]) rmSync(`${stateDb}${suffix}`, { force: true })
        copyFileSync(backup, stateDb)
      }
    })
  }

  it("a damaged logs.db: health exits 4 naming it instead of saying nothing needs attention", async () => {
    const backup = join(workspace.root, "logs.db.backup")
    copyFileSync(logsDb, backup)
    try {
      writeOver(logsDb)
      const health = await workspace.run(["health", "--format", "text"])
      expect(health.code, health.stderr).toBe(4)
      expect(health.stdout).not.toContain("nothing needs attention")
      expect(health.stdout).toContain(`${logsDb}: the database is damaged`)
      const json = (await workspace.run(["health", "--format", "json"])).json()
      expect(json.attention).toEqual([expect.objectContaining({ code: "database-damaged", hint: expect.stringContaining("sqlite3") })])
      const init = await workspace.run(["init", "--format", "json"])
      expect(init.code).toBe(78)
      expect(JSON.parse(init.stderr).error).toMatchObject({ code: "database_damaged", message: expect.stringContaining("log lines") })
      expect(readFileSync(logsDb).equals(garbage(20_000))).toBe(true)
    } finally {
      for (const suffix of ["-wal", "-shm"]) rmSync(`${logsDb}${suffix}`, { force: true })
      copyFileSync(backup, logsDb)
    }
  })
})
