import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Either } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { builtInRegistry, makeAdapters } from "../../src/layers/adapters/registry.js"
import { makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import { makeTransactionEngine, type EngineOptions } from "../../src/layers/fs/TransactionEngine.js"
import { workspaceBundles } from "../../src/layers/fs/transaction/Bundles.js"
import { makeWorkspaceConfig, resolveWorkspacePaths } from "../../src/layers/fs/WorkspaceConfigFile.js"
import { shareWalks } from "../../src/services/BundleFiles.js"
import { makeWorkspace, type TxWorkspace } from "../support/txHarness.js"

// Issue 13 item 3 (decision 0049): a direct write holds the workspace mutation lease from its first walk to its
// commit (Transaction.hold). The engine's operations inside take the lease without waiting for themselves, its
// check under the lease takes the listing walked under the same lease, and it forgets that listing before it
// writes. What another tool changes meanwhile in a file the set writes is still refused by the before-hash check.

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const open: Array<TxWorkspace> = []
afterEach(() => {
  for (const ws of open.splice(0)) ws.dispose()
})

/** An engine over a fresh workspace whose BundleFiles counts the walks it really makes (not those answered from a shared listing). */
const setup = (overrides: Partial<EngineOptions> = {}) => {
  const ws = makeWorkspace({ "knowledge/a.md": "# A\n\nalpha\n" })
  open.push(ws)
  const counter = { walks: 0 }
  const files = makeBundleFiles(Effect.sync(() => {
    counter.walks++
    return 64
  }))
  const paths = resolveWorkspacePaths({ configDir: ws.configDir, dataDir: ws.dataDir, cacheDir: ws.cacheDir })
  const engine = makeTransactionEngine({ paths, bundles: workspaceBundles(makeWorkspaceConfig(paths), makeAdapters(builtInRegistry, files)), files, ...overrides })
  const listed = Effect.map(files.walk(ws.root, { includeHidden: false }), (w) => w.files.map((f) => f.path))
  return { ws, counter, engine, listed, paths }
}

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))
const leaseFile = (ws: TxWorkspace) => path.join(ws.dataDir, "locks", "mutation.lease")

describe("Transaction.hold (decision 0049)", () => {
  it("one walk serves the holder and the engine's check; the engine forgets it when it writes", async () => {
    const { ws, counter, engine, listed } = setup()
    const seen = await Effect.runPromise(engine.hold(Effect.gen(function* () {
      const before = yield* listed
      const walksBefore = counter.walks
      // The holder's lease is the engine's: the apply runs at once (no 30 s wait for itself).
      yield* engine.apply({ id: "held-1", changes: [{ bundle: "notes", path: "knowledge/b.md", beforeHash: null, after: "# B\n\nbeta\n" }] })
      const walksInApply = counter.walks - walksBefore
      // Past the write the shared listing is gone: the next walk lists the new file.
      const after = yield* listed
      return { before, walksInApply, after, leaseHeld: fs.existsSync(leaseFile(ws)) }
    })))
    expect(seen).toEqual({ before: ["knowledge/a.md"], walksInApply: 0, after: ["knowledge/a.md", "knowledge/b.md"], leaseHeld: true })
    expect(counter.walks).toBe(2)
    expect(fs.existsSync(leaseFile(ws))).toBe(false)
  })

  it("outside hold the engine's check walks afresh, even inside shareWalks", async () => {
    const { counter, engine, listed } = setup()
    const walks = await Effect.runPromise(shareWalks(Effect.gen(function* () {
      yield* listed
      const before = counter.walks
      yield* engine.apply({ id: "plain-1", changes: [{ bundle: "notes", path: "knowledge/b.md", beforeHash: null, after: "# B\n" }] })
      return counter.walks - before
    })))
    expect(walks).toBe(1)
  })

  it("a listing shared before the lease was taken is not the engine's: hold walks afresh under the lease", async () => {
    const { ws, counter, engine, listed } = setup()
    const seen = await Effect.runPromise(shareWalks(Effect.gen(function* () {
      const outside = yield* listed
      fs.writeFileSync(path.join(ws.root, "knowledge/c.md"), "# C\n")
      const inside = yield* engine.hold(listed)
      return { outside, inside }
    })))
    expect(seen).toEqual({ outside: ["knowledge/a.md"], inside: ["knowledge/a.md", "knowledge/c.md"] })
    expect(counter.walks).toBe(2)
  })

  it("a file the set writes, changed by another tool after the held walk, is refused as stale; nothing is written", async () => {
    const { ws, engine, listed } = setup()
    const created = await run(engine.hold(Effect.gen(function* () {
      yield* listed
      // Another tool creates the file the holder chose to create, and edits the one it means to update.
      fs.writeFileSync(path.join(ws.root, "knowledge/new.md"), "# Theirs\n")
      return yield* engine.apply({ id: "held-stale-1", changes: [{ bundle: "notes", path: "knowledge/new.md", beforeHash: null, after: "# Mine\n" }] })
    })))
    expect(created).toMatchObject({ left: { _tag: "StaleBeforeHash", path: "knowledge/new.md", expected: null, actual: sha256("# Theirs\n") } })
    const edited = await run(engine.hold(Effect.gen(function* () {
      yield* listed
      fs.writeFileSync(path.join(ws.root, "knowledge/a.md"), "# A\n\nedited elsewhere\n")
      return yield* engine.apply({ id: "held-stale-2", changes: [{ bundle: "notes", path: "knowledge/a.md", beforeHash: sha256("# A\n\nalpha\n"), after: "# A\n\nmine\n" }] })
    })))
    expect(edited).toMatchObject({ left: { _tag: "StaleBeforeHash", path: "knowledge/a.md" } })
    expect(fs.readFileSync(path.join(ws.root, "knowledge/new.md"), "utf8")).toBe("# Theirs\n")
    expect(fs.readFileSync(path.join(ws.root, "knowledge/a.md"), "utf8")).toBe("# A\n\nedited elsewhere\n")
  })

  it("while one writer holds the lease another waits and fails busy; a nested hold re-enters", async () => {
    const { ws, engine, paths } = setup()
    const other = makeTransactionEngine({ paths, bundles: workspaceBundles(makeWorkspaceConfig(paths), makeAdapters(builtInRegistry, makeBundleFiles())), files: makeBundleFiles(), leaseWaitMillis: 200 })
    const outcome = await Effect.runPromise(engine.hold(Effect.gen(function* () {
      // Another writer (a fiber of its own, as another process would be) does not hold it.
      const busy = yield* Effect.promise(() => run(other.apply({ id: "other-1", changes: [{ bundle: "notes", path: "knowledge/o.md", beforeHash: null, after: "# O\n" }] })))
      const nested = yield* engine.hold(engine.apply({ id: "nested-1", changes: [{ bundle: "notes", path: "knowledge/n.md", beforeHash: null, after: "# N\n" }] }))
      return { busy: Either.isLeft(busy) ? busy.left._tag : "applied", nested: nested.changes.map((c) => c.path) }
    })))
    expect(outcome).toEqual({ busy: "WorkspaceUnavailable", nested: ["knowledge/n.md"] })
    expect(fs.existsSync(path.join(ws.root, "knowledge/o.md"))).toBe(false)
    // Released at the end of the hold: the other engine writes now.
    expect(Either.isRight(await run(other.apply({ id: "other-2", changes: [{ bundle: "notes", path: "knowledge/o.md", beforeHash: null, after: "# O\n" }] })))).toBe(true)
  })

  it("a holder whose lease was taken over meanwhile is refused at its next engine step; nothing is written", async () => {
    const { ws, engine, listed } = setup()
    const result = await run(engine.hold(Effect.gen(function* () {
      yield* listed
      // Another writer broke the lease as stale and took it (its token replaces ours).
      fs.writeFileSync(leaseFile(ws), JSON.stringify({ pid: process.pid, host: "elsewhere", startedAt: new Date().toISOString(), token: "someone-else" }))
      return yield* engine.apply({ id: "taken-1", changes: [{ bundle: "notes", path: "knowledge/t.md", beforeHash: null, after: "# T\n" }] })
    })))
    expect(result).toMatchObject({ left: { _tag: "WorkspaceUnavailable", reason: expect.stringContaining("taken over while this command held it") } })
    expect(fs.existsSync(path.join(ws.root, "knowledge/t.md"))).toBe(false)
    // The successor's lease is not removed by the holder that lost it.
    expect(JSON.parse(fs.readFileSync(leaseFile(ws), "utf8"))).toMatchObject({ token: "someone-else" })
  })
})
