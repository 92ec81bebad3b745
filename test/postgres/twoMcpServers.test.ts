import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { spawn, type ChildProcess } from "node:child_process"
import { mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { readFile, utimes, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Agent, fetch as undiciFetch } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, type Workspace } from "../support/cli.js"
import { adminStatement, postgresSuites } from "./pgTestDb.js"

/**
 * Issue 27 item 4: two real `akm mcp --http` servers — separate $CONFIG,
 * $DATA and $CACHE — on one PostgreSQL schema and one shared bundle folder,
 * driven through @modelcontextprotocol/sdk's client, with `akm index --full`
 * runs (one of them SIGKILLed mid-run) as child processes beside them.
 */

const FILES = 3000
/** Files that match MARK before the change, and after it (a complete index of either state is one of these). */
const BEFORE = 10
const AFTER = 2000
const MARK = "zebrafish"
/** Same length as MARK: swapping one for the other keeps every file's size. */
const OTHER = "xylophone"
/** Every file's mtime (whole seconds): rewritten files keep size and mtime, so only a --full run sees the change. */
const MTIME = 1_700_000_000
const TOKEN = "two-mcp-servers-test-token"

interface ToolResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: Record<string, unknown>
}
interface SearchResult {
  readonly total: number
  readonly hits: ReadonlyArray<{ readonly ref: string }>
}

const note = (i: number, word: string) => `---\ndescription: Field note ${i}\n---\n# Field note ${i}\n\nObserved the ${word} near station ${i % 97}.\n`

interface Server {
  readonly workspace: Workspace
  readonly child: ChildProcess
  readonly client: Client
  readonly stderr: () => string
}

/**
 * The clients' connections: one per request, never an idle one kept. Node's
 * server closes a connection idle for 5 s (keepAliveTimeout); a client whose
 * process was held up past that (a busy machine, a synchronous stretch in this
 * file) wrote its next call onto the closed connection and got ECONNRESET.
 * Keep-alive is not what this suite tests, so it takes no part.
 */
const noKeepAlive = new Agent({ pipelining: 0 })
// undici's own fetch takes its Agent; its types differ from the global fetch's only in name.
const fetchFresh = ((url: string | URL, init?: RequestInit) =>
  undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: noKeepAlive })) as unknown as typeof fetch

/** An MCP client on a server's URL, with the token, on connections of its own per request (fetchFresh). */
const connect = async (url: URL): Promise<Client> => {
  const client = new Client({ name: "akm-two-servers", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: fetchFresh, requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }))
  return client
}

/** Blocks this process, event loop and all, without spending CPU: what a busy machine may do to it. */
const holdUp = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const startServer = async (workspace: Workspace, env: Record<string, string>): Promise<Server> => {
  const child = spawn(process.execPath, [join(repoRoot, "bin/akm.js"), "mcp", "--http", "--port", "0"], {
    env: { ...workspace.env, ...env, AKM_MCP_TOKEN: TOKEN },
    cwd: workspace.root,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      const found = /listening on (http:\/\/\S+)/.exec(stderr)
      if (found !== null) resolve(new URL(found[1]!))
    })
    child.once("exit", (code) => reject(new Error(`akm mcp --http exited ${code}: ${stderr}`)))
  })
  expect(url.hostname).toBe("127.0.0.1")
  return { workspace, child, client: await connect(url), stderr: () => stderr }
}

const call = async (server: Server, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const result = (await server.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as unknown as ToolResult
  expect(result.isError, `${name}: ${result.content[0]?.text}`).toBe(false)
  return result.structuredContent!
}
const search = async (server: Server, query: string): Promise<SearchResult> => (await call(server, "search", { query, limit: 50 })) as unknown as SearchResult

/** `akm index --full` with a server's environment, as a child of its own (the caller may SIGKILL it). */
const indexRun = (workspace: Workspace, env: Record<string, string>) => {
  const child = spawn(process.execPath, [join(repoRoot, "bin/akm.js"), "index", "--full", "--format", "json"], {
    env: { ...workspace.env, ...env },
    cwd: workspace.root,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => void (stdout += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, exited }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

postgresSuites("two akm mcp --http servers on one PostgreSQL database", (databaseUrl) => {
  // The cause of this suite's ECONNRESET under load, on a server of its own (state.db): with keep-alive, a call made
  // after the client was held up past the server's idle timeout went out on the connection the server had closed.
  it("the suite's client still lands a call after its process was held up past the server's keep-alive timeout", async () => {
    const workspace = makeWorkspace()
    expect((await workspace.run(["init"])).code).toBe(0)
    const server = await startServer(workspace, {})
    try {
      const first = await call(server, "search", { query: "anything" })
      expect(first.total).toBe(0)
      holdUp(7_000) // Node's keepAliveTimeout is 5 s; the server has closed the idle connection by now
      expect((await call(server, "search", { query: "anything" })).total).toBe(0)
    } finally {
      await server.client.close().catch(() => undefined)
      server.child.kill("SIGKILL")
      workspace.cleanup()
    }
  }, 60_000)

  describe("two akm mcp --http servers on one PostgreSQL database (issue 27 item 4)", () => {
    const schema = `akm_t_mcp_${process.pid}_${Date.now()}`
    const admin = <A extends object>(statement: string) => adminStatement<A>(statement, databaseUrl)
    const url = new URL(databaseUrl)
    url.searchParams.set("options", `-c search_path=${schema}`)
    const env = { AKM_DATABASE_URL: url.toString() }
    /** The index runs under test connect under this name, so suites running beside this one (same database) never count. */
    const RUN_NAME = `akm_idx_${process.pid}`
    const runUrl = new URL(url)
    runUrl.searchParams.set("application_name", RUN_NAME)
    const runEnv = { AKM_DATABASE_URL: runUrl.toString() }
    /** Whether a run under test holds the index run's advisory lock (decision 0034). */
    const indexLockHeld = async () =>
      (await admin<{ held: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE a.application_name = '${RUN_NAME}' AND l.locktype = 'advisory' AND l.granted
        AND l.objsubid = 1 AND l.objid::bigint = (hashtext('akm/index')::bigint & 4294967295)) AS held`))[0]!.held
    const indexedAt = async () => (await admin<{ value: string }>(`SELECT value FROM ${schema}.idx_meta WHERE key = 'indexed_at'`))[0]?.value

    let a: Server
    let b: Server
    let shared: string
    let before: ReadonlyArray<string>

    beforeAll(async () => {
      await admin(`CREATE SCHEMA ${schema}`)
      const wa = makeWorkspace()
      const wb = makeWorkspace()
      // The bundle on storage both servers mount at one path (docs/team.md); mtimes fixed so a same-size rewrite is invisible to a stat.
      shared = wa.folder("shared-kb")
      for (let i = 0; i < FILES; i++) {
        const dir = join(shared, `s${i % 30}`)
        mkdirSync(dir, { recursive: true })
        const file = join(dir, `note${i}.md`)
        writeFileSync(file, note(i, i < BEFORE ? MARK : OTHER))
        utimesSync(file, MTIME, MTIME)
      }
      for (const ws of [wa, wb]) {
        expect((await ws.run(["init"], { env })).code).toBe(0)
        writeFileSync(join(ws.configDir, "config.yaml"), "storage:\n  kind: postgres\n", { flag: "a" })
      }
      const added = await wa.run(["bundle", "add", shared, "--name", "kb", "--adapter", "akm", "--writable"], { env })
      expect(added.code, added.stderr).toBe(0)
      expect((await wb.run(["bundle", "add", shared, "--name", "kb", "--adapter", "akm", "--writable"], { env })).code).toBe(0)
      const first = await indexRun(wa, env).exited
      expect(first.code, first.stderr).toBe(0)
      a = await startServer(wa, env)
      b = await startServer(wb, env)
    }, 600_000)

    afterAll(async () => {
      for (const server of [a, b]) {
        if (server === undefined) continue
        await server.client.close().catch(() => undefined)
        server.child.kill("SIGKILL")
        server.workspace.cleanup()
      }
      await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await noKeepAlive.close()
    })

    it("both servers answer from the one index", async () => {
      const [fromA, fromB] = await Promise.all([search(a, MARK), search(b, MARK)])
      expect(fromA.total).toBe(BEFORE)
      before = fromA.hits.map((h) => h.ref).sort()
      expect(fromB.hits.map((h) => h.ref).sort()).toEqual(before)
      expect(before[0]).toMatch(/^kb\/\/s\d+\/note\d+$/)
    }, 120_000)

    it("an index run SIGKILLed mid-run leaves both servers serving the previous complete index, and releases its lock", async () => {
      // Same size, same mtime: the servers' incremental refresh sees nothing to do, a --full run rewrites 1,990 items.
      // Written without blocking this process: the servers' clients keep answering their sockets meanwhile.
      for (let i = BEFORE; i < AFTER; i++) {
        const file = join(shared, `s${i % 30}`, `note${i}.md`)
        await writeFile(file, (await readFile(file, "utf8")).replace(OTHER, MARK))
        await utimes(file, MTIME, MTIME)
      }
      // The servers' watchers saw the writes: their next read refreshes (nothing changed by stat) — settle that first.
      expect((await search(a, MARK)).total).toBe(BEFORE)
      expect((await search(b, MARK)).total).toBe(BEFORE)
      const stamp = await indexedAt()
      expect(stamp).toBeDefined()

      const run = indexRun(a.workspace, runEnv)
      const deadline = Date.now() + 60_000
      while (!(await indexLockHeld())) {
        expect(Date.now(), "the index run never took its lock").toBeLessThan(deadline)
        await sleep(20)
      }
      await sleep(300)
      run.child.kill("SIGKILL")
      const killed = await run.exited
      // Killed before it finished (it would have exited 0 on its own), so its work was in flight.
      expect(killed.signal).toBe("SIGKILL")
      expect(await indexedAt()).toBe(stamp)

      // The killed session's transaction rolls back and its advisory lock goes with it.
      const released = Date.now() + 30_000
      while (await indexLockHeld()) {
        expect(Date.now(), "the killed run's advisory lock stayed held").toBeLessThan(released)
        await sleep(50)
      }
      for (const server of [b, a]) {
        const found = await search(server, MARK)
        expect(found.total).toBe(BEFORE)
        expect(found.hits.map((h) => h.ref).sort()).toEqual(before)
      }
    }, 300_000)

    it("searches on both servers during the next index run each see the previous complete index or the new one, never a part", async () => {
      const run = indexRun(a.workspace, runEnv)
      let running = true
      void run.exited.then(() => void (running = false))
      const seen: Array<{ server: string; total: number; refs: ReadonlyArray<string>; during: boolean }> = []
      const loop = async (name: string, server: Server) => {
        while (running) {
          const found = await search(server, MARK)
          seen.push({ server: name, total: found.total, refs: found.hits.map((h) => h.ref).sort(), during: running })
        }
      }
      await Promise.all([loop("A", a), loop("B", b)])
      const done = await run.exited
      expect(done.code, done.stderr).toBe(0)
      expect(JSON.parse(done.stdout).totals).toMatchObject({ updated: AFTER - BEFORE, items: FILES })
      // Searches answered while the run held its transaction, on both servers.
      expect(seen.filter((s) => s.during && s.server === "A").length).toBeGreaterThan(0)
      expect(seen.filter((s) => s.during && s.server === "B").length).toBeGreaterThan(0)
      for (const s of seen) {
        if (s.total === BEFORE) expect(s.refs).toEqual(before)
        else expect(s.total, JSON.stringify(s)).toBe(AFTER)
      }
      expect(seen.some((s) => s.total === BEFORE), "no search saw the previous index").toBe(true)
      // Committed: both servers now serve the new index.
      for (const server of [a, b]) expect((await search(server, MARK)).total).toBe(AFTER)
      expect(await indexLockHeld()).toBe(false)
    }, 300_000)

    it("a remember through server A is found by a search and a show through server B", async () => {
      const remembered = await call(a, "remember", { text: "The night shift restarts the kelp-tank pumps at 0400 before feeding.", bundle: "kb" })
      expect(remembered.status).toBe("accepted")
      const found = await search(b, "kelp-tank pumps night shift")
      const ref = found.hits[0]?.ref
      expect(ref).toBe(remembered.ref)
      expect(ref).toMatch(/^kb\/\/memories\//)
      const shown = await call(b, "show", { ref })
      expect(shown.content).toContain("restarts the kelp-tank pumps")
    }, 120_000)

    it("no lost update: concurrent feedback through both servers (and users' CLI feedback from both workspaces) on one ref all lands", async () => {
      const ref = before[0]!
      const calls = Array.from({ length: 16 }, (_, i) => call(i % 2 === 0 ? a : b, "feedback", { ref, polarity: "positive" }))
      // The learned utility replays user outcomes only; an agent's feedback over MCP is kept as rows (source agent).
      const users = Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).workspace.run(["feedback", ref, "--positive"], { env }))
      for (const fed of await Promise.all(calls)) expect(fed.ref).toBe(ref)
      for (const fed of await Promise.all(users)) expect(fed.code, fed.stderr).toBe(0)
      const rows = await admin<{ source: string; n: number }>(`SELECT source, count(*)::int AS n FROM ${schema}.feedback WHERE ref = '${ref}' GROUP BY source ORDER BY source`)
      expect(rows).toEqual([{ source: "agent", n: 16 }, { source: "user", n: 6 }])
      // Each recording replays the ref's whole user history under the ref's lock: the last one counts all six.
      const [utility] = await admin<{ value: number; outcomes: number }>(`SELECT value, outcomes FROM ${schema}.utility WHERE ref = '${ref}'`)
      expect(utility).toMatchObject({ outcomes: 6 })
      expect(utility!.value).toBeGreaterThan(0.5)
    }, 120_000)

    it("both servers are still up", () => {
      expect(a.child.exitCode).toBeNull()
      expect(b.child.exitCode).toBeNull()
    })
  })
})
