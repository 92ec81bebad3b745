import Database from "better-sqlite3"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// akm init and akm info end to end (spec 01 §1, §4; issue 2 items 6 and "done when").

interface DbInfo {
  readonly path: string
  readonly exists: boolean
  readonly bytes: number | null
}
interface InfoJson {
  readonly schemaVersion: number
  readonly version: string
  readonly paths: { readonly config: string; readonly dataDir: string; readonly cacheDir: string }
  readonly databases: { readonly state: DbInfo; readonly index: DbInfo; readonly logs: DbInfo }
  readonly bundles: number
  readonly defaultBundle: string | null
}

describe("akm info before init", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("reports the three databases as not existing, and creates none of them", async () => {
    const r = await workspace.run(["info", "--format", "json"])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    const info = r.json<InfoJson>()
    expect(info.schemaVersion).toBe(1)
    expect(info.databases.state).toEqual({ path: join(workspace.dataDir, "state.db"), exists: false, bytes: null })
    expect(info.databases.logs).toEqual({ path: join(workspace.dataDir, "logs.db"), exists: false, bytes: null })
    expect(info.databases.index).toEqual({ path: join(workspace.cacheDir, "index.db"), exists: false, bytes: null })
    expect(info.bundles).toBe(0)
    expect(info.defaultBundle).toBeNull()
    for (const db of Object.values(info.databases)) expect(existsSync(db.path), db.path).toBe(false)
    expect(existsSync(join(workspace.configDir, "config.yaml"))).toBe(false)
  })
})

describe("akm init", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const files = {
    config: join(workspace.configDir, "config.yaml"),
    state: join(workspace.dataDir, "state.db"),
    logs: join(workspace.dataDir, "logs.db"),
    index: join(workspace.cacheDir, "index.db")
  }

  it("creates config.yaml and the three databases", async () => {
    const r = await workspace.run(["init"])
    expect(r.code).toBe(0)
    const result = r.json()
    expect(result.schemaVersion).toBe(1)
    expect(result.configCreated).toBe(true)
    expect(result.configFile).toBe(files.config)
    expect(result.databases.state.path).toBe(files.state)
    expect(result.databases.logs.path).toBe(files.logs)
    expect(result.databases.index.path).toBe(files.index)
    for (const file of Object.values(files)) expect(existsSync(file), file).toBe(true)
  })

  it("is idempotent: a second run succeeds and keeps everything", async () => {
    const r = await workspace.run(["init"])
    expect(r.code).toBe(0)
    expect(r.json().configCreated).toBe(false)
    for (const file of Object.values(files)) expect(existsSync(file), file).toBe(true)
  })

  it("after it, info names the three db files with their sizes", async () => {
    const r = await workspace.run(["info", "--format", "json"])
    expect(r.code).toBe(0)
    const info = r.json<InfoJson>()
    expect(info.paths.config).toBe(files.config)
    for (const name of ["state", "logs", "index"] as const) {
      const db = info.databases[name]
      expect(db.path).toBe(files[name])
      expect(db.exists).toBe(true)
      expect(db.bytes).toBeGreaterThan(0)
    }
    expect(info.bundles).toBe(0)
  })

  it("info as text names the same files", async () => {
    const r = await workspace.run(["info", "--format", "text"])
    expect(r.code).toBe(0)
    for (const file of [files.config, files.state, files.logs, files.index]) expect(r.stdout).toContain(file)
  })
})

describe("a database written by a newer akm (R-DB-1)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("is refused: exit 78, code database_too_new, stdout empty", async () => {
    expect((await workspace.run(["init"])).code).toBe(0)
    const stateDb = join(workspace.dataDir, "state.db")
    const db = new Database(stateDb)
    try {
      db.prepare("INSERT INTO akm_migrations (migration_id, name) VALUES (?, ?)").run(9999, "from_the_future")
    } finally {
      db.close()
    }
    const r = await workspace.run(["init"])
    expect(r.code).toBe(78)
    expect(r.stdout).toBe("")
    const { error } = r.error()
    expect(error.code).toBe("database_too_new")
    expect(error.message).toContain(stateDb)
    expect(error.message).toContain("9999_from_the_future")
    expect(error.hint).not.toBe("")
  })
})
