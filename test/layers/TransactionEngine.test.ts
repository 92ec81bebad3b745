import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Either } from "effect"
import { EventLoopSlicing } from "../../src/domain/EventLoopSlice.js"
import * as git from "isomorphic-git"
import { afterEach, describe, expect, it } from "vitest"
import { builtInRegistry, makeAdapters } from "../../src/layers/adapters/registry.js"
import { makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import { makeTransactionEngine, type EngineOptions } from "../../src/layers/fs/TransactionEngine.js"
import { blobFile, putBlob } from "../../src/layers/fs/transaction/BlobStore.js"
import { workspaceBundles } from "../../src/layers/fs/transaction/Bundles.js"
import { writeJournal, writeRetireRecord, type Journal } from "../../src/layers/fs/transaction/Journal.js"
import { withLease } from "../../src/layers/fs/transaction/Lease.js"
import { makeWorkspaceConfig, resolveWorkspacePaths } from "../../src/layers/fs/WorkspaceConfigFile.js"
import type { Transaction } from "../../src/services/Transaction.js"
import { transactionContract } from "../services/Transaction.contract.js"
import { makeWorkspace, snapshot, type TxWorkspace, type WorkspaceOptions } from "../support/txHarness.js"

const sha256 = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex")

const engineOver = (ws: TxWorkspace, overrides: Partial<EngineOptions> = {}): Transaction["Type"] => {
  const paths = resolveWorkspacePaths({ configDir: ws.configDir, dataDir: ws.dataDir, cacheDir: ws.cacheDir })
  const files = makeBundleFiles()
  return makeTransactionEngine({ paths, bundles: workspaceBundles(makeWorkspaceConfig(paths), makeAdapters(builtInRegistry, files)), files, ...overrides })
}

transactionContract("TransactionEngine", (files, others) => {
  const ws = makeWorkspace(files, others === undefined ? {} : { others })
  return {
    transaction: engineOver(ws),
    roots: { notes: ws.root, ...Object.fromEntries(Object.keys(others ?? {}).map((name) => [name, path.join(ws.base, name)])) },
    dispose: ws.dispose
  }
})

const open: Array<TxWorkspace> = []
afterEach(() => {
  for (const ws of open.splice(0)) ws.dispose()
})
const workspace = (files: Readonly<Record<string, string>>, options: WorkspaceOptions = {}) => {
  const ws = makeWorkspace(files, options)
  open.push(ws)
  return ws
}
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))
const read = (root: string, rel: string) => (fs.existsSync(path.join(root, rel)) ? fs.readFileSync(path.join(root, rel), "utf8") : undefined)
const txnDir = (ws: TxWorkspace) => path.join(ws.dataDir, "txn")
// Finished records (txn/.finished/) wait for the caller to record the outcome; they are not unfinished work.
const txnEntries = (ws: TxWorkspace) => (fs.existsSync(txnDir(ws)) ? fs.readdirSync(txnDir(ws)).filter((n) => n !== ".finished") : [])
const archiveDir = (ws: TxWorkspace) => path.join(ws.dataDir, "archive")

describe("TransactionEngine: refusals before anything is written", () => {
  it("refuses a read-only bundle, an adapter without an authoring path and an unknown bundle", async () => {
    const readOnly = workspace({ "knowledge/a.md": "a" }, { writable: false })
    const result = await run(engineOver(readOnly).apply({ id: "ro", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("a"), after: "b" }] }))
    expect(result).toMatchObject({ left: { _tag: "TransactionRefused", path: "notes", reason: "bundle 'notes' is read-only" } })
    expect(read(readOnly.root, "knowledge/a.md")).toBe("a")

    const generic = workspace({ "a.txt": "a" }, { adapter: "generic-files" })
    expect(await run(engineOver(generic).apply({ id: "gen", changes: [{ bundle: "notes", path: "a.txt", beforeHash: sha256("a"), after: "b" }] })))
      .toMatchObject({ left: { _tag: "TransactionRefused", reason: expect.stringContaining("no authoring path") } })

    expect(await run(engineOver(generic).apply({ id: "nb", changes: [{ bundle: "nope", path: "a.md", beforeHash: null, after: "b" }] })))
      .toMatchObject({ left: { _tag: "TransactionRefused", reason: "bundle 'nope' is not configured" } })
  })

  it("refuses paths escaping the root: '../x', absolute, '.' segments, backslashes", async () => {
    const ws = workspace({ "knowledge/a.md": "a" })
    const engine = engineOver(ws)
    const before = snapshot(ws.base)
    for (const [i, p] of ["../x.md", "knowledge/../../x.md", "/etc/passwd", path.join(ws.base, "x.md"), "./a.md", "knowledge//a.md", "knowledge\\a.md", "C:/x.md", ""].entries()) {
      const result = await run(engine.apply({ id: `esc-${i}`, changes: [{ bundle: "notes", path: p, beforeHash: null, after: "x" }] }))
      expect(result, p).toMatchObject({ left: { _tag: "TransactionRefused", path: p } })
    }
    const after = snapshot(ws.base)
    // The engine's own directories may appear; nothing else changed.
    for (const key of Object.keys(after).filter((k) => !k.startsWith("data"))) expect(after[key], key).toBe(before[key])
    expect(Object.keys(after).filter((k) => !k.startsWith("data")).sort()).toEqual(Object.keys(before).sort())
  })

  it("refuses a symbolic link planted anywhere in the target path, and never writes through it", async () => {
    const ws = workspace({ "knowledge/a.md": "a", "knowledge/sub/b.md": "b" })
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "akm-outside-"))
    try {
      fs.writeFileSync(path.join(outside, "target.md"), "t")
      fs.symlinkSync(outside, path.join(ws.root, "linked"))
      fs.symlinkSync(path.join(outside, "target.md"), path.join(ws.root, "knowledge", "link.md"))
      fs.symlinkSync(path.join(ws.root, "knowledge", "sub"), path.join(ws.root, "knowledge", "inner"))
      const engine = engineOver(ws)
      const cases: ReadonlyArray<[string, string | null]> = [["linked/new.md", null], ["linked/target.md", sha256("t")], ["knowledge/link.md", sha256("t")], ["knowledge/inner/b.md", sha256("b")], ["knowledge/inner/new.md", null]]
      for (const [i, [p, beforeHash]] of cases.entries()) {
        const result = await run(engine.apply({ id: `sym-${i}`, changes: [{ bundle: "notes", path: p, beforeHash, after: "x" }] }))
        expect(result, p).toMatchObject({ left: { _tag: "TransactionRefused", reason: expect.stringContaining("symbolic link") } })
      }
      expect(fs.readdirSync(outside)).toEqual(["target.md"])
      expect(read(outside, "target.md")).toBe("t")
      expect(read(ws.root, "knowledge/sub/b.md")).toBe("b")
    } finally {
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })

  it("refuses malformed sets: both bytes and delete, neither, a delete without before-hash, one path twice, a bad id", async () => {
    const ws = workspace({ "knowledge/a.md": "a" })
    const engine = engineOver(ws)
    const bad = [
      { id: "m1", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("a"), after: "x", delete: true as const }] },
      { id: "m2", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("a") }] },
      { id: "m3", changes: [{ bundle: "notes", path: "knowledge/b.md", beforeHash: null, delete: true as const }] },
      { id: "m4", changes: [{ bundle: "notes", path: "knowledge/n.md", beforeHash: null, after: "1" }, { bundle: "notes", path: "knowledge/n.md", beforeHash: null, after: "2" }] },
      { id: "../escape", changes: [{ bundle: "notes", path: "knowledge/n.md", beforeHash: null, after: "1" }] }
    ]
    for (const request of bad) expect((await run(engine.apply(request))), request.id).toMatchObject({ left: { _tag: "TransactionRefused" } })
    expect(fs.readdirSync(path.join(ws.root, "knowledge"))).toEqual(["a.md"])
  })

  it("fails validation on errors the set introduces, writing nothing; errors a file already had do not block", async () => {
    const broken = "---\ntitle: [unclosed\n---\n# Broken\n"
    const ws = workspace({ "knowledge/a.md": "# A\n\nfine\n", "knowledge/old.md": broken })
    const engine = engineOver(ws)
    const failed = await run(engine.apply({
      id: "v1",
      changes: [
        { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nfine\n"), after: "# A\n\nstill fine\n" },
        { bundle: "notes", path: "knowledge/bad.md", beforeHash: null, after: broken }
      ]
    }))
    expect(failed).toMatchObject({ left: { _tag: "ValidationFailed", diagnostics: [{ code: "invalid-frontmatter", path: "knowledge/bad.md", severity: "error" }] } })
    expect(read(ws.root, "knowledge/a.md")).toBe("# A\n\nfine\n")
    expect(read(ws.root, "knowledge/bad.md")).toBeUndefined()
    expect(txnEntries(ws)).toEqual([])

    const touchUp = await run(engine.apply({ id: "v2", changes: [{ bundle: "notes", path: "knowledge/old.md", beforeHash: sha256(broken), after: `${broken}\nMore text.\n` }] }))
    expect(Either.isRight(touchUp)).toBe(true)
  })
})

describe("TransactionEngine: writes, backups, journal", () => {
  it("keeps backups content-addressed under archive/blobs/sha256/<aa>/ (files 0600, dirs 0700) and leaves no journal or temp file", async () => {
    const ws = workspace({ "knowledge/a.md": "# A\n\nold\n" })
    fs.chmodSync(path.join(ws.root, "knowledge/a.md"), 0o640)
    const engine = engineOver(ws)
    const result = Either.getOrThrow(await run(engine.apply({
      id: "b1",
      changes: [
        { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nold\n"), after: "# A\n\nnew\n" },
        { bundle: "notes", path: "knowledge/secret.md", beforeHash: null, after: "# S\n\nprivate\n", mode: 0o600 }
      ]
    })))
    const blob = blobFile(archiveDir(ws), result.changes[0]!.backup!)
    expect(blob).toBe(path.join(ws.dataDir, "archive", "blobs", "sha256", sha256("# A\n\nold\n").slice(0, 2), sha256("# A\n\nold\n")))
    expect(fs.readFileSync(blob, "utf8")).toBe("# A\n\nold\n")
    expect(fs.statSync(blob).mode & 0o777).toBe(0o600)
    for (const dir of [path.dirname(blob), path.join(ws.dataDir, "archive", "blobs", "sha256"), path.join(ws.dataDir, "archive", "blobs")]) expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(path.join(ws.root, "knowledge/a.md")).mode & 0o777).toBe(0o640)
    expect(fs.statSync(path.join(ws.root, "knowledge/secret.md")).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(path.join(ws.root, "knowledge")).sort()).toEqual(["a.md", "secret.md"])
    expect(txnEntries(ws)).toEqual([])
    expect(fs.existsSync(path.join(ws.dataDir, "locks", "mutation.lease"))).toBe(false)

    // The same bytes backed up again: idempotent.
    Either.getOrThrow(await run(engine.apply({ id: "b2", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nnew\n"), after: "# A\n\nold\n" }] })))
    Either.getOrThrow(await run(engine.apply({ id: "b3", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nold\n"), after: "# A\n\nnewer\n" }] })))
    expect(fs.readdirSync(path.dirname(blob))).toEqual([sha256("# A\n\nold\n")])
  })

  it("undoes a set in-process when a write fails midway: the first file is restored, no journal remains", async () => {
    const ws = workspace({ "knowledge/a.md": "# A\n\nold\n", "knowledge/b.md": "# B\n\nold\n" })
    const pre = snapshot(ws.root)
    // The second write's temp name is taken by a directory, so that write fails after the first one landed.
    const blocker = path.join(ws.root, "knowledge", `.akm-tx-${sha256("midway").slice(0, 12)}-1.tmp`)
    fs.mkdirSync(blocker)
    const result = await run(engineOver(ws).apply({
      id: "midway",
      changes: [
        { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nold\n"), after: "# A\n\nnew\n" },
        { bundle: "notes", path: "knowledge/b.md", beforeHash: sha256("# B\n\nold\n"), after: "# B\n\nnew\n" }
      ]
    }))
    expect(result).toMatchObject({ left: { _tag: "WorkspaceUnavailable" } })
    fs.rmdirSync(blocker)
    expect(snapshot(ws.root)).toEqual(pre)
    expect(txnEntries(ws)).toEqual([])
  })

  it("refuses every write while a journal recovery could not read is in place (issue 13 item 2c)", async () => {
    const ws = workspace({ "knowledge/a.md": "a" })
    fs.mkdirSync(path.join(txnDir(ws), "stuck"), { recursive: true })
    fs.writeFileSync(path.join(txnDir(ws), "stuck", "journal.json"), "{ not json")
    for (const id of ["stuck", "other"]) {
      const result = await run(engineOver(ws).apply({ id, changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("a"), after: "b" }] }))
      expect(result).toMatchObject({ left: { _tag: "TransactionRefused", path: "stuck", reason: expect.stringContaining("transaction stuck"), hint: expect.stringContaining("akm proposal recover stuck --rollback") } })
    }
    expect(read(ws.root, "knowledge/a.md")).toBe("a")
    expect(Either.getOrThrow(await run(engineOver(ws).recover)).refused).toEqual([{ id: "stuck", reason: expect.stringContaining("not valid JSON"), damaged: true }])
  })
})

/** A journal as the engine writes it at "prepared", for the bundle "notes". */
const journalFor = (ws: TxWorkspace, id: string, targets: Journal["targets"], extra: Partial<Journal> = {}): Journal => ({
  version: 1,
  id,
  op: "apply",
  phase: "prepared",
  createdAt: new Date().toISOString(),
  pid: 999_999,
  bundles: { notes: { root: ws.root, gitCommit: false } },
  targets,
  createdDirs: [],
  ...extra
})

describe("TransactionEngine: recovery (R-TX-5)", () => {
  it("rolls a prepared journal back: restores backups, removes created files, temp files and created directories", async () => {
    const ws = workspace({ "knowledge/a.md": "old a", "knowledge/keep.md": "keep" })
    const pre = snapshot(ws.root)
    putBlob(archiveDir(ws), new TextEncoder().encode("old a"))
    writeJournal(txnDir(ws), journalFor(ws, "j1", [
      { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("old a"), afterHash: sha256("new a"), backup: sha256("old a"), beforeMode: 0o644, temp: "knowledge/.akm-tx-000000000000-0.tmp" },
      { bundle: "notes", path: "knowledge/n/c.md", beforeHash: null, afterHash: sha256("c"), temp: "knowledge/n/.akm-tx-000000000000-1.tmp" },
      { bundle: "notes", path: "knowledge/keep.md", beforeHash: sha256("keep"), afterHash: null, backup: sha256("keep"), temp: "knowledge/.akm-tx-000000000000-2.tmp" }
    ], { createdDirs: [{ bundle: "notes", path: "knowledge/n" }] }))
    // The interrupted run: a.md written, c.md created, keep.md not yet deleted, a temp file left.
    fs.writeFileSync(path.join(ws.root, "knowledge/a.md"), "new a")
    fs.mkdirSync(path.join(ws.root, "knowledge/n"))
    fs.writeFileSync(path.join(ws.root, "knowledge/n/c.md"), "c")
    fs.writeFileSync(path.join(ws.root, "knowledge/.akm-tx-000000000000-2.tmp"), "half")

    const report = Either.getOrThrow(await run(engineOver(ws).recover))
    expect(report).toEqual({ rolledBack: ["j1"], rolledForward: [], refused: [] })
    expect(snapshot(ws.root)).toEqual(pre)
    expect(txnEntries(ws)).toEqual([])
  })

  it("leaves bytes it cannot prove it wrote, reports them and sets the journal aside", async () => {
    const ws = workspace({ "knowledge/a.md": "edited by the user", "knowledge/b.md": "new b" })
    putBlob(archiveDir(ws), new TextEncoder().encode("old b"))
    writeJournal(txnDir(ws), journalFor(ws, "j2", [
      { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("old a"), afterHash: sha256("new a"), backup: sha256("old a"), temp: "knowledge/.akm-tx-000000000000-0.tmp" },
      { bundle: "notes", path: "knowledge/b.md", beforeHash: sha256("old b"), afterHash: sha256("new b"), backup: sha256("old b"), temp: "knowledge/.akm-tx-000000000000-1.tmp" }
    ]))
    const report = Either.getOrThrow(await run(engineOver(ws).recover))
    expect(report.refused).toEqual([{ id: "j2", reason: expect.stringContaining("knowledge/a.md changed since the interrupted transaction") }])
    expect(read(ws.root, "knowledge/a.md")).toBe("edited by the user")
    expect(read(ws.root, "knowledge/b.md")).toBe("old b")
    expect(txnEntries(ws)).toEqual([".unresolved"])
    expect(fs.readdirSync(path.join(txnDir(ws), ".unresolved"))).toEqual([expect.stringMatching(/^j2-\d+\.json$/)])
  })

  it("refuses a journal pointing outside its root, or at a root the bundle no longer has, and touches nothing", async () => {
    const ws = workspace({ "knowledge/a.md": "a" })
    const elsewhere = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-elsewhere-")))
    try {
      fs.writeFileSync(path.join(elsewhere, "victim.md"), "new")
      writeJournal(txnDir(ws), journalFor(ws, "j3", [{ bundle: "notes", path: "../victim.md", beforeHash: null, afterHash: sha256("new"), temp: ".akm-tx-000000000000-0.tmp" }]))
      writeJournal(txnDir(ws), journalFor(ws, "j4", [{ bundle: "notes", path: "victim.md", beforeHash: null, afterHash: sha256("new"), temp: ".akm-tx-000000000000-0.tmp" }], { bundles: { notes: { root: elsewhere, gitCommit: false } } }))
      writeJournal(txnDir(ws), journalFor(ws, "j5", [{ bundle: "notes", path: "knowledge/a.md", beforeHash: null, afterHash: sha256("a"), temp: "../../.akm-tx-000000000000-0.tmp" }]))
      const report = Either.getOrThrow(await run(engineOver(ws).recover))
      expect(report.refused.map((r) => r.id)).toEqual(["j3", "j4", "j5"])
      expect(report.refused[1]!.reason).toContain(`names ${elsewhere} as the root of 'notes'`)
      expect(read(elsewhere, "victim.md")).toBe("new")
      expect(read(ws.root, "knowledge/a.md")).toBe("a")
      expect(txnEntries(ws).sort()).toEqual(["j3", "j4", "j5"])
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it("rolls a committed journal forward: the files stay, the journal goes", async () => {
    const ws = workspace({ "knowledge/a.md": "new a" })
    writeJournal(txnDir(ws), journalFor(ws, "j6", [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("old a"), afterHash: sha256("new a"), backup: sha256("old a"), temp: "knowledge/.akm-tx-000000000000-0.tmp" }], { phase: "committed" }))
    expect(Either.getOrThrow(await run(engineOver(ws).recover))).toEqual({ rolledBack: [], rolledForward: ["j6"], refused: [] })
    expect(read(ws.root, "knowledge/a.md")).toBe("new a")
    expect(txnEntries(ws)).toEqual([])
  })

  it("apply recovers first, so a crashed set never blocks the next writer", async () => {
    const ws = workspace({ "knowledge/a.md": "new a" })
    putBlob(archiveDir(ws), new TextEncoder().encode("old a"))
    writeJournal(txnDir(ws), journalFor(ws, "j7", [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("old a"), afterHash: sha256("new a"), backup: sha256("old a"), temp: "knowledge/.akm-tx-000000000000-0.tmp" }]))
    const result = await run(engineOver(ws).apply({ id: "after-crash", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("old a"), after: "# A\n\nnext\n" }] }))
    expect(Either.isRight(result)).toBe(true)
    expect(read(ws.root, "knowledge/a.md")).toBe("# A\n\nnext\n")
  })
})

describe("TransactionEngine: the workspace mutation lease (R-TX-4)", () => {
  const leaseFile = (ws: TxWorkspace) => path.join(ws.dataDir, "locks", "mutation.lease")
  const plant = (ws: TxWorkspace, record: object) => {
    fs.mkdirSync(path.dirname(leaseFile(ws)), { recursive: true })
    fs.writeFileSync(leaseFile(ws), JSON.stringify(record))
  }
  const change = { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("a"), after: "# A\n\nb\n" }

  it("waits a bounded time for a live holder, then fails busy naming it", async () => {
    const ws = workspace({ "knowledge/a.md": "a" })
    plant(ws, { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), token: "live" })
    const started = Date.now()
    const result = await run(engineOver(ws, { leaseWaitMillis: 300 }).apply({ id: "busy", changes: [change] }))
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(result).toMatchObject({ left: { _tag: "WorkspaceUnavailable", reason: expect.stringContaining(`akm process ${process.pid}`) } })
    expect(read(ws.root, "knowledge/a.md")).toBe("a")
    expect(JSON.parse(fs.readFileSync(leaseFile(ws), "utf8"))).toMatchObject({ token: "live" })
  })

  it("takes over a lease whose process is gone, or that is older than the bounded age", async () => {
    const dead = workspace({ "knowledge/a.md": "a" })
    plant(dead, { pid: 2 ** 22 + 12_345, host: os.hostname(), startedAt: new Date().toISOString(), token: "dead" })
    expect(Either.isRight(await run(engineOver(dead, { leaseWaitMillis: 300 }).apply({ id: "dead", changes: [change] })))).toBe(true)
    expect(fs.existsSync(leaseFile(dead))).toBe(false)

    const old = workspace({ "knowledge/a.md": "a" })
    plant(old, { pid: process.pid, host: "another-host", startedAt: new Date(Date.now() - 3_600_000).toISOString(), token: "old" })
    expect(Either.isRight(await run(engineOver(old, { leaseWaitMillis: 300, leaseMaxAgeMillis: 600_000 }).apply({ id: "old", changes: [change] })))).toBe(true)

    const remote = workspace({ "knowledge/a.md": "a" })
    plant(remote, { pid: 2 ** 22 + 12_345, host: "another-host", startedAt: new Date().toISOString(), token: "remote" })
    expect(await run(engineOver(remote, { leaseWaitMillis: 200 }).apply({ id: "remote", changes: [change] }))).toMatchObject({ left: { _tag: "WorkspaceUnavailable" } })
  })

  it("releases only a lease whose token is still its own", async () => {
    const ws = workspace({})
    const file = leaseFile(ws)
    await Effect.runPromise(withLease({ file, what: "the workspace mutation lease", waitMillis: 100, maxAgeMillis: 600_000 })(Effect.sync(() => {
      // Someone broke this lease and took a new one meanwhile.
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), token: "successor" }))
    })))
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ token: "successor" })
  })
})

describe("TransactionEngine: two-phase moves (R-TX-9)", () => {
  const memory = "# M\n\nremembered\n"

  it("keeps the published copy and a pending-retire record when phase two fails; recovery drops it once it cannot go ahead", async () => {
    const ws = workspace({ "memories/m.md": memory }, { others: { team: {} } })
    const engine = engineOver(ws)
    const result = Either.getOrThrow(await run(engine.twoPhase(
      { id: "tp", changes: [{ bundle: "team", path: "knowledge/m.md", beforeHash: null, after: memory }] },
      { id: "tp-retire", changes: [{ bundle: "notes", path: "memories/m.md", beforeHash: sha256("not what is there"), delete: true }] }
    )))
    expect(result.retire).toBeUndefined()
    expect(read(path.join(ws.base, "team"), "knowledge/m.md")).toBe(memory)
    expect(read(ws.root, "memories/m.md")).toBe(memory)
    expect(fs.readdirSync(path.join(txnDir(ws), "tp-retire"))).toEqual(["retire.json"])
    const report = Either.getOrThrow(await run(engine.recover))
    expect(report.refused).toEqual([{ id: "tp-retire", reason: expect.stringContaining("the published copy stays") }])
    expect(txnEntries(ws)).toEqual([])
    expect(read(ws.root, "memories/m.md")).toBe(memory)
  })

  it("recovery resumes a retire whose publish landed, and drops one whose publish did not", async () => {
    const ws = workspace({ "memories/m.md": memory, "memories/n.md": memory }, { others: { team: { "knowledge/m.md": memory } } })
    const record = (id: string, stage: "awaiting-publish" | "published", source: string, published: string) => ({
      version: 1 as const,
      id,
      publishId: `${id}-publish`,
      stage,
      published: [{ bundle: "team", path: published, afterHash: sha256(memory) }],
      changes: [{ bundle: "notes", path: source, beforeHash: sha256(memory), delete: true as const }]
    })
    writeRetireRecord(txnDir(ws), record("landed", "awaiting-publish", "memories/m.md", "knowledge/m.md"))
    writeRetireRecord(txnDir(ws), record("lost", "awaiting-publish", "memories/n.md", "knowledge/n.md"))
    const report = Either.getOrThrow(await run(engineOver(ws).recover))
    expect(report).toEqual({ rolledBack: ["lost"], rolledForward: ["landed"], refused: [] })
    expect(read(ws.root, "memories/m.md")).toBeUndefined()
    expect(read(ws.root, "memories/n.md")).toBe(memory)
  })
})

describe("TransactionEngine: exact-path git commits (step 11)", () => {
  it("commits exactly the changed paths of a bundle that asks for it; refuses git.commit outside a repository", async () => {
    const ws = workspace({ "knowledge/a.md": "# A\n\nold\n", "knowledge/dirty.md": "# D\n\nclean\n" }, { gitCommit: true })
    await git.init({ fs, dir: ws.root, defaultBranch: "main" })
    await git.add({ fs, dir: ws.root, filepath: "." })
    await git.commit({ fs, dir: ws.root, message: "start", author: { name: "T", email: "t@example.com" } })
    fs.writeFileSync(path.join(ws.root, "knowledge/dirty.md"), "# D\n\ndirty, and longer\n")
    const result = Either.getOrThrow(await run(engineOver(ws).apply({
      id: "g1",
      message: "akm: remember a",
      changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nold\n"), after: "# A\n\nnew\n" }]
    })))
    expect(result.gitCommits).toEqual([{ bundle: "notes", sha: expect.stringMatching(/^[0-9a-f]{40}$/) }])
    const shown = execFileSync("git", ["show", "--name-only", "--format=%s%n%an <%ae>", "HEAD"], { cwd: ws.root, encoding: "utf8" })
    expect(shown.trim().split("\n")).toEqual(["akm: remember a", "akm <akm@localhost>", "", "knowledge/a.md"])
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: ws.root, encoding: "utf8" })).toBe(" M knowledge/dirty.md\n")

    const plain = workspace({ "knowledge/a.md": "a" }, { gitCommit: true })
    expect(await run(engineOver(plain).apply({ id: "g2", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("a"), after: "b" }] })))
      .toMatchObject({ left: { _tag: "TransactionRefused", reason: expect.stringContaining("not inside a git repository") } })
  })
})

describe("TransactionEngine: finished records and damaged journals (issue 13 item 2)", () => {
  it("keeps a finished record of each set until the caller acknowledges it, also for a journal recovery rolled forward", async () => {
    const ws = workspace({ "knowledge/a.md": "new a" })
    const engine = engineOver(ws)
    Either.getOrThrow(await run(engine.apply({ id: "f1", changes: [{ bundle: "notes", path: "knowledge/b.md", beforeHash: null, after: "b" }] })))
    writeJournal(txnDir(ws), journalFor(ws, "f2", [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("old a"), afterHash: sha256("new a"), backup: sha256("old a"), temp: "knowledge/.akm-tx-000000000000-0.tmp" }], { phase: "committed" }))
    Either.getOrThrow(await run(engine.recover))
    const finished = Either.getOrThrow(await run(engine.finished))
    expect(finished.map((f) => [f.id, f.op, f.changes.map((c) => c.path)])).toEqual(expect.arrayContaining([["f1", "apply", ["knowledge/b.md"]], ["f2", "apply", ["knowledge/a.md"]]]))
    Either.getOrThrow(await run(engine.acknowledge("f1", "apply")))
    Either.getOrThrow(await run(engine.acknowledge("f2", "apply")))
    expect(Either.getOrThrow(await run(engine.finished))).toEqual([])
  })

  it("inspect lists a damaged journal; resolve rolls it back from the backups using the caller's targets", async () => {
    const ws = workspace({ "knowledge/a.md": "new a" })
    putBlob(archiveDir(ws), new TextEncoder().encode("old a"))
    fs.mkdirSync(path.join(txnDir(ws), "d1"), { recursive: true })
    fs.writeFileSync(path.join(txnDir(ws), "d1", "journal.json"), "{\"version\":1,")
    const engine = engineOver(ws)
    expect(Either.getOrThrow(await run(engine.inspect))).toEqual([{ id: "d1", reason: expect.stringContaining("not valid JSON") }])
    const resolved = Either.getOrThrow(await run(engine.resolve({
      id: "d1",
      direction: "rollback",
      fallback: { op: "apply", targets: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("old a"), afterHash: sha256("new a") }] }
    })))
    expect(resolved).toMatchObject({ op: "apply", restored: ["notes//knowledge/a.md"], problems: [] })
    expect(read(ws.root, "knowledge/a.md")).toBe("old a")
    expect(Either.getOrThrow(await run(engine.inspect))).toEqual([])
    expect(txnEntries(ws)).toEqual([])
  })
})

describe("TransactionEngine: the write set and the event loop (decision 0053)", () => {
  it("lets the event loop turn between the files of a set, in the same on-disk order, and writes the same files", async () => {
    const ws = workspace({ "knowledge/a.md": "a", "knowledge/b.md": "b" })
    // Crash points and event-loop turns in one log: a turn between two files' writes shows the loop was free.
    const log: Array<string> = []
    let handle: NodeJS.Immediate | undefined
    const beat = () => {
      if (log.at(-1) !== "turn") log.push("turn")
      handle = setImmediate(beat)
    }
    const engine = engineOver(ws, { crashPoints: { reach: (point) => void log.push(point) } })
    const changes = [
      { bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("a"), after: "a2" },
      { bundle: "notes", path: "knowledge/b.md", beforeHash: sha256("b"), after: "b2" },
      { bundle: "notes", path: "knowledge/c.md", beforeHash: null, after: "c" }
    ]
    handle = setImmediate(beat)
    try {
      // A zero-length slice: every step of the set lets the loop turn.
      const result = await run(Effect.locally(engine.apply({ id: "sliced", changes, validate: false }), EventLoopSlicing, 0))
      expect(Either.isRight(result)).toBe(true)
    } finally {
      clearImmediate(handle)
    }
    expect(read(ws.root, "knowledge/a.md")).toBe("a2")
    expect(read(ws.root, "knowledge/b.md")).toBe("b2")
    expect(read(ws.root, "knowledge/c.md")).toBe("c")
    const points = log.filter((p) => p !== "turn")
    const writes = log.flatMap((p, i) => (p === "write" ? [i] : []))
    expect(writes).toHaveLength(3)
    // Same order of steps as the synchronous set: journal, backups, each temp then its rename, commit mark.
    expect(points.slice(points.indexOf("after-journal"), points.indexOf("after-commit-mark") + 1)).toEqual([
      "after-journal", "backup", "backup",
      "temp-written", "write", "temp-written", "write", "temp-written", "write",
      "after-writes", "after-commit-mark"
    ])
    // The loop turned between the first file's rename and the second file's temp write.
    expect(log.slice(writes[0]!, writes[1]!)).toContain("turn")
  })
})
