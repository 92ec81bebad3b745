import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import Database from "better-sqlite3"
import { Effect, Either, TestClock } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { FUTURE_SKEW_MILLIS, withLease, type LeaseOptions } from "../../src/layers/fs/transaction/Lease.js"
import { workspaceLease } from "../../src/layers/sqlite/leaseEvents.js"
import { makeStateStore } from "../../src/layers/sqlite/StateStoreSqlite.js"
import { bundleChild } from "../support/txHarness.js"

/**
 * The one lease (R-TX-4, R-IDX-6) over real files under a temp `$DATA`:
 * stale leases — process gone, over the age bound, dated in the future — are
 * taken over with a `lease.taken-over` event in state.db; a live one makes
 * the writer wait and then fail naming what is held and by whom; real child
 * processes contending for it never lose an update, and a holder killed with
 * SIGKILL is taken over by the next writer.
 */

const HOUR = 3_600_000

/** A migrated state.db made once (takeover events go into an existing workspace's state.db), copied into each fresh `$DATA`. */
let stateTemplate: string | undefined
beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "akm-lease-state-"))
  stateTemplate = path.join(dir, "state.db")
  await Effect.runPromise(Effect.scoped(Effect.flatMap(makeStateStore(stateTemplate), (store) => store.init)))
})
afterAll(() => {
  if (stateTemplate !== undefined) fs.rmSync(path.dirname(stateTemplate), { recursive: true, force: true })
})

const freshData = (withState = true) => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), "akm-lease-"))
  if (withState) fs.copyFileSync(stateTemplate!, path.join(data, "state.db"))
  return { data, file: path.join(data, "locks", "test.lease"), stateDb: path.join(data, "state.db"), dispose: () => fs.rmSync(data, { recursive: true, force: true }) }
}

const plant = (file: string, record: object) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(record))
}

const options = (file: string, bounds: Partial<Pick<LeaseOptions, "waitMillis" | "maxAgeMillis">> = {}): LeaseOptions =>
  workspaceLease(file, "the test lease", { waitMillis: bounds.waitMillis ?? 300, maxAgeMillis: bounds.maxAgeMillis ?? 600_000 })

const takeoverEvents = (stateDb: string): ReadonlyArray<{ kind: string; subject: string; data: { what: string; reason: string; holder: unknown } }> => {
  if (!fs.existsSync(stateDb)) return []
  const db = new Database(stateDb, { readonly: true })
  try {
    return (db.prepare("SELECT kind, subject, data FROM events WHERE kind = 'lease.taken-over' ORDER BY id").all() as Array<{ kind: string; subject: string; data: string }>)
      .map((row) => ({ ...row, data: JSON.parse(row.data) as { what: string; reason: string; holder: unknown } }))
  } finally {
    db.close()
  }
}

/** A pid no process has (above the usual pid_max of 2^22). */
const DEAD_PID = 2 ** 22 + 12_345

describe("Lease: stale leases are taken over, with an event", () => {
  const cases: ReadonlyArray<{ name: string; record: (now: number) => object; reason: string }> = [
    { name: "dated a day in the future (another host, so no pid check could free it)", record: (now) => ({ pid: process.pid, host: "another-host", startedAt: new Date(now + 24 * HOUR).toISOString(), token: "future" }), reason: "future-dated" },
    { name: "older than the age bound although its process runs", record: (now) => ({ pid: process.pid, host: "another-host", startedAt: new Date(now - 2 * HOUR).toISOString(), token: "old" }), reason: "over-age" },
    { name: "whose process is gone on this host", record: (now) => ({ pid: DEAD_PID, host: os.hostname(), startedAt: new Date(now).toISOString(), token: "dead" }), reason: "process-gone" }
  ]
  for (const { name, record, reason } of cases) {
    it.live(`a lease ${name}`, () =>
      Effect.gen(function* () {
        const ws = freshData()
        try {
          const planted = record(Date.now())
          plant(ws.file, planted)
          let inside: unknown
          yield* withLease(options(ws.file, { maxAgeMillis: HOUR }))(Effect.sync(() => (inside = JSON.parse(fs.readFileSync(ws.file, "utf8")))))
          expect(inside).toMatchObject({ pid: process.pid, host: os.hostname() })
          expect(fs.existsSync(ws.file)).toBe(false)
          const { token: _token, ...holder } = planted as { token: string }
          expect(takeoverEvents(ws.stateDb)).toEqual([{ kind: "lease.taken-over", subject: "locks/test.lease", data: { what: "the test lease", reason, holder } }])
        } finally {
          ws.dispose()
        }
      }))
  }

  it.live("a workspace without state.db: the stale lease is still taken over, and nothing is created to record it", () =>
    Effect.gen(function* () {
      const ws = freshData(false)
      try {
        plant(ws.file, { pid: DEAD_PID, host: os.hostname(), startedAt: new Date().toISOString(), token: "dead" })
        yield* withLease(options(ws.file))(Effect.void)
        expect(fs.existsSync(ws.file)).toBe(false)
        expect(fs.existsSync(ws.stateDb)).toBe(false)
      } finally {
        ws.dispose()
      }
    }))

  it.live("a start time within the clock-skew allowance is not taken over: the writer waits and fails naming the holder", () =>
    Effect.gen(function* () {
      const ws = freshData()
      try {
        const startedAt = new Date(Date.now() + FUTURE_SKEW_MILLIS / 2).toISOString()
        plant(ws.file, { pid: process.pid, host: "another-host", startedAt, token: "skewed" })
        const result = yield* Effect.either(withLease(options(ws.file, { waitMillis: 200 }))(Effect.void))
        expect(Either.isLeft(result) && result.left.reason).toBe(`the workspace is busy: the test lease is held by akm process ${process.pid} on another-host since ${startedAt}`)
        expect(takeoverEvents(ws.stateDb)).toEqual([])
      } finally {
        ws.dispose()
      }
    }))

  it.live("a live holder makes the writer wait the bounded time, then fail naming what is held, by whom and since when", () =>
    Effect.gen(function* () {
      const ws = freshData()
      try {
        const startedAt = new Date().toISOString()
        plant(ws.file, { pid: process.pid, host: os.hostname(), startedAt, token: "live" })
        const started = Date.now()
        const result = yield* Effect.either(withLease(options(ws.file, { waitMillis: 300 }))(Effect.void))
        expect(Date.now() - started).toBeGreaterThanOrEqual(250)
        expect(result).toMatchObject({
          left: { _tag: "WorkspaceUnavailable", path: ws.file, reason: `the workspace is busy: the test lease is held by akm process ${process.pid} on ${os.hostname()} since ${startedAt}` }
        })
        expect(JSON.parse(fs.readFileSync(ws.file, "utf8"))).toMatchObject({ token: "live" })
      } finally {
        ws.dispose()
      }
    }))

  it.effect("the lease's start time comes from Clock (here the TestClock)", () =>
    Effect.gen(function* () {
      const ws = freshData()
      try {
        yield* TestClock.setTime(Date.parse("2030-01-02T03:04:05.006Z"))
        const record = yield* withLease(options(ws.file))(Effect.sync(() => JSON.parse(fs.readFileSync(ws.file, "utf8")) as { startedAt: string }))
        expect(record.startedAt).toBe("2030-01-02T03:04:05.006Z")
      } finally {
        ws.dispose()
      }
    }))
})

describe("Lease: real processes", () => {
  let child: Awaited<ReturnType<typeof bundleChild>>
  beforeAll(async () => {
    child = await bundleChild("leaseChild")
  }, 60_000)
  afterAll(() => child.dispose())

  const run = (args: ReadonlyArray<string>) => spawn(process.execPath, [child.script, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  const exited = (proc: ChildProcess) =>
    new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      let stderr = ""
      proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
      proc.once("error", reject)
      proc.once("close", (code) => resolve({ code, stderr }))
    })

  it("serialises four writing processes: no lost update", async () => {
    const ws = freshData()
    try {
      const counter = path.join(ws.data, "counter")
      const results = await Promise.all([0, 1, 2, 3].map(() => exited(run([ws.file, counter, "15"]))))
      expect(results).toEqual(results.map(() => ({ code: 0, stderr: "" })))
      expect(fs.readFileSync(counter, "utf8")).toBe("60")
      expect(fs.existsSync(ws.file)).toBe(false)
      expect(takeoverEvents(ws.stateDb)).toEqual([])
    } finally {
      ws.dispose()
    }
  }, 60_000)

  it("a holder killed with SIGKILL is taken over by the next writer, with an event naming it", async () => {
    const ws = freshData()
    try {
      const holder = run([ws.file, path.join(ws.data, "unused"), "1", "hold"])
      const done = exited(holder)
      await new Promise<void>((resolve) => holder.stdout!.setEncoding("utf8").on("data", (chunk: string) => chunk.includes("held") && resolve()))
      const held = JSON.parse(fs.readFileSync(ws.file, "utf8")) as { pid: number; host: string; startedAt: string }
      expect(held.pid).toBe(holder.pid)
      holder.kill("SIGKILL")
      await done

      const counter = path.join(ws.data, "counter")
      expect(await exited(run([ws.file, counter, "1"]))).toEqual({ code: 0, stderr: "" })
      expect(fs.readFileSync(counter, "utf8")).toBe("1")
      expect(takeoverEvents(ws.stateDb)).toEqual([
        { kind: "lease.taken-over", subject: "locks/test.lease", data: { what: "the test lease", reason: "process-gone", holder: { pid: held.pid, host: held.host, startedAt: held.startedAt } } }
      ])
    } finally {
      ws.dispose()
    }
  }, 60_000)
})
