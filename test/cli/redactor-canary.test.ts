import Database from "better-sqlite3"
import { execFile } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, type CliResult, type Workspace } from "../support/cli.js"

/**
 * The secret canary (spec 10 §3, R-RED-1, R-DB-2, R-RT-7): unique values
 * planted in a root `.env`, an env item, a secret item and in queries and
 * arguments; every command runs; afterwards no db, log, journal, archive blob,
 * written file or captured stdout/stderr holds any of them. All values are fake.
 */
const ROOT_ENV = "canaryRootEnv-6d1f-QZP"
const ENV_ITEM = "canaryEnvItem-0b7e-LKS"
const SECRET_ITEM = "canarySecretItem-a93c-VWN"
const PATTERN = "ghp_CANARYfake0000TESTtest1111EXAMPLE33yy"
const CANARIES = [ROOT_ENV, ENV_ITEM, SECRET_ITEM, PATTERN]


const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))

describe("secret canary", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("no planted value reaches a db, log, journal, archive blob, written file or output", async () => {
    const project = workspace.folder("project", {
      ".env": `API_TOKEN=${ROOT_ENV}\n`,
      "env/prod.env": `DB_PASSWORD=${ENV_ITEM}\n`,
      "secrets/deploy-key": `${SECRET_ITEM}\n`,
      "knowledge/deploy.md": "# Deploy\n\nRun the pipeline, then check staging.\n"
    })
    const leakFile = workspace.folder("incoming", { "note.md": `# Note\n\nThe token is ${ROOT_ENV}, see ${PATTERN}.\n` })
    const outputs: Array<readonly [string, CliResult]> = []
    const run = async (...args: ReadonlyArray<string>) => {
      const result = await workspace.run(args)
      outputs.push([args.join(" "), result])
      return result
    }
    expect((await run("bundle", "add", project, "--name", "mine", "--adapter", "akm")).code).toBe(0)
    await run("config", "set", "defaultBundle", "mine")
    await run("index")
    await run("index", "--full")
    await run("search", `deploy ${ENV_ITEM}`)
    await run("search", PATTERN, "--format", "text")
    await run("search", "deploy", "--no-track")
    await run("show", "mine//knowledge/deploy")
    await run("show", "mine//env/prod")
    await run("show", "mine//secrets/deploy-key")
    await run("show", `mine//knowledge/${SECRET_ITEM}`)
    // Errors quoting a planted value print it redacted (known values too: run.ts takes the Redactor's snapshot).
    const unknownRef = await run("show", `mine//knowledge/${SECRET_ITEM}`, "--verbose", "--format", "text")
    expect(unknownRef.code).toBe(1)
    expect(unknownRef.stderr).toContain("[redacted:env]")
    const missing = await run("bundle", "add", join(workspace.root, `missing-${ENV_ITEM}`), "--name", "gone")
    expect(missing.code).not.toBe(0)
    expect(missing.error().error.message).toContain("[redacted:env]")
    await run("curate", "how do I deploy")
    await run("remember", `The deploy key is ${SECRET_ITEM} and ${PATTERN}`)
    await run("import", join(leakFile, "note.md"))
    await run("create", "knowledge", "--title", `About ${ENV_ITEM}`, "--body", `uses ${ROOT_ENV}`)
    await run("feedback", "mine//knowledge/deploy", "--positive")
    const negative = await run("feedback", "mine//knowledge/deploy", "--negative", "--reason", `leaks ${ROOT_ENV} and ${PATTERN}`, "--tag", `key=${SECRET_ITEM}`)
    expect(negative.code, negative.stderr).toBe(0)
    expect(negative.json().tags).toEqual({ key: "[redacted:env]" })
    await run("lint")
    await run("health")
    await run("info")
    await run("bundle", "list")
    await run("bundle", "show", "mine")
    await run("proposal", "list")
    await run("config", "list")
    writeFileSync(join(project, "knowledge/deploy.md"), "# Deploy\n\nRun the pipeline.\n")
    await run("index")

    const leaks = new Set<string>()
    for (const dir of [workspace.dataDir, workspace.configDir, workspace.cacheDir]) {
      for (const file of filesUnder(dir)) {
        const bytes = readFileSync(file)
        const name = relative(dir, file).replace(/-(wal|shm|journal)$/, "")
        for (const canary of CANARIES) if (bytes.includes(canary)) leaks.add(`${name}: ${canary}`)
      }
    }
    const ownSecretFiles = new Set([".env", "env/prod.env", "secrets/deploy-key"])
    for (const file of filesUnder(project)) {
      const name = relative(project, file)
      if (ownSecretFiles.has(name) || name.startsWith(".git/")) continue
      for (const canary of CANARIES) if (readFileSync(file).includes(canary)) leaks.add(`bundle ${name}: ${canary}`)
    }
    for (const [, result] of outputs) {
      for (const canary of CANARIES) {
        if (result.stdout.includes(canary)) leaks.add(`stdout: ${canary}`)
        if (result.stderr.includes(canary)) leaks.add(`stderr: ${canary}`)
      }
    }
    expect([...leaks].sort()).toEqual([])
  }, 120_000)
})

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const node = (script: string, args: ReadonlyArray<string>, ws: Workspace): Promise<Run> =>
  new Promise((done, fail) => {
    execFile(process.execPath, ["-e", script, "--", ...args], { cwd: ws.root, env: ws.env, encoding: "utf8", timeout: 30_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
      if (code === null) return fail(new Error(`node -e did not run: ${error?.message}\n${stderr}`))
      done({ code, stdout, stderr })
    })
  })

const dist = (name: string) => JSON.stringify(join(repoRoot, "dist", "cli", `${name}.cjs`))

/** The full CLI alone (main.cjs's runCli), and the search fast path alone (exit 99 when it declines). */
const runFull = (ws: Workspace, args: ReadonlyArray<string>) => node(`require(${dist("main")}).runCli(process.argv.slice(1)).then((code) => { process.exitCode = code })`, args, ws)
const runFast = (ws: Workspace, args: ReadonlyArray<string>) =>
  node(`require(${dist("search")}).runSearch(process.argv.slice(1)).then((code) => { process.exitCode = code === undefined ? 99 : code })`, args, ws)

const timeless = (text: string): string => text.replace(/("timingMs": ?|timingMs: )[\d.]+/g, "$1<t>").replace(/[\d.]+ ms(?=\n|$)/g, "<t> ms")

/** Whether any file of a database (with its -wal and -journal) holds `needle`. */
const dbHolds = (file: string, needle: string): boolean =>
  [file, `${file}-wal`, `${file}-journal`].some((f) => existsSync(f) && readFileSync(f).includes(needle))

describe("a searched-for secret (R-RED-1)", () => {
  // A value no pattern knows: only the digest stored from the root .env can redact it.
  const PLANTED = "plantedEnvValue-7c2e-RTX"
  const ws = makeWorkspace()
  afterAll(ws.cleanup)

  const lastQueries = (n: number): ReadonlyArray<string> => {
    const db = new Database(join(ws.dataDir, "state.db"), { readonly: true })
    try {
      return (db.prepare("SELECT query FROM usage_events WHERE kind = 'search' ORDER BY id DESC LIMIT ?").all(n) as ReadonlyArray<{ query: string }>).map((r) => r.query)
    } finally {
      db.close()
    }
  }

  beforeAll(async () => {
    const project = ws.folder("project", { ".env": `SERVICE_URL=${PLANTED}\n`, "knowledge/deploy.md": "# Deploy\n\nRun the pipeline.\n" })
    expect((await ws.run(["bundle", "add", project, "--name", "mine", "--adapter", "akm"])).code).toBe(0)
    expect((await ws.run(["index"])).code).toBe(0)
  }, 60_000)

  it("leaves no trace in state.db, logs.db or stdout, on the fast path and the full path alike", async () => {
    for (const args of [["search", `deploy ${PLANTED}`, "--format", "json"], ["search", PLANTED, "--format", "text"], ["search", `deploy ${PLANTED}`, "--no-track"]]) {
      const fast = await runFast(ws, args)
      expect(fast.code, args.join(" ")).toBe(0)
      const full = await runFull(ws, args)
      expect({ ...fast, stdout: timeless(fast.stdout) }, args.join(" ")).toEqual({ ...full, stdout: timeless(full.stdout) })
      expect(fast.stdout + fast.stderr, args.join(" ")).not.toContain(PLANTED)
      expect(fast.stdout, args.join(" ")).toContain("[redacted:env]")
    }
    expect(lastQueries(4)).toEqual(["[redacted:env]", "[redacted:env]", "deploy [redacted:env]", "deploy [redacted:env]"])
    expect(dbHolds(join(ws.dataDir, "state.db"), PLANTED)).toBe(false)
    expect(dbHolds(join(ws.dataDir, "logs.db"), PLANTED)).toBe(false)
  }, 60_000)

  it("stores a 56 KB query capped at 1 KiB after redaction, on both paths", async () => {
    const long = `deploy ${PLANTED} ${"pipeline stage retried after timeout ".repeat(1520)}`.trimEnd()
    expect(long.length).toBeGreaterThan(56_000)
    expect((await runFast(ws, ["search", long, "--format", "json", "--limit", "1"])).code).toBe(0)
    expect((await runFull(ws, ["search", long, "--format", "json", "--limit", "1"])).code).toBe(0)
    for (const query of lastQueries(2)) {
      expect(query.length).toBe(1024)
      expect(query.startsWith("deploy [redacted:env] pipeline stage")).toBe(true)
    }
    expect(dbHolds(join(ws.dataDir, "state.db"), PLANTED)).toBe(false)
  }, 60_000)
})
