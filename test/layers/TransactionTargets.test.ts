import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Either } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { builtInRegistry, makeAdapters } from "../../src/layers/adapters/registry.js"
import { makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import { makeTransactionEngine } from "../../src/layers/fs/TransactionEngine.js"
import { workspaceBundles } from "../../src/layers/fs/transaction/Bundles.js"
import { makeWorkspaceConfig, resolveWorkspacePaths } from "../../src/layers/fs/WorkspaceConfigFile.js"
import type { FileChange } from "../../src/domain/FileChange.js"
import { makeWorkspace, snapshot, type TxWorkspace } from "../support/txHarness.js"

/**
 * Issue 13 item 1: no change set creates, updates or deletes anything under a
 * bundle's .git/ (.hg/, .svn/), nor akm's config dir, cache dir or the data
 * dir's own state — even when a (hand-edited) bundle root holds them.
 */
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const open: Array<TxWorkspace> = []
afterEach(() => {
  for (const ws of open.splice(0)) ws.dispose()
})

const engineOver = (ws: TxWorkspace, dirs: { configDir?: string; dataDir?: string; cacheDir?: string } = {}) => {
  const paths = resolveWorkspacePaths({ configDir: dirs.configDir ?? ws.configDir, dataDir: dirs.dataDir ?? ws.dataDir, cacheDir: dirs.cacheDir ?? ws.cacheDir })
  const files = makeBundleFiles()
  // The bundle config stays where the harness wrote it.
  return makeTransactionEngine({ paths, bundles: workspaceBundles(makeWorkspaceConfig({ ...paths, configFile: path.join(ws.configDir, "config.yaml"), lockFile: path.join(ws.dataDir, "akm.lock") }), makeAdapters(builtInRegistry, files)), files })
}

const tryApply = (engine: ReturnType<typeof engineOver>, changes: ReadonlyArray<FileChange>) =>
  Effect.runPromise(Effect.either(engine.apply({ id: `t-${Math.random().toString(16).slice(2)}`, changes })))

describe("write targets (issue 13 item 1)", () => {
  it.each([".git/config", ".git/hooks/post-commit", ".GIT/config", "sub/.hg/hgrc", ".svn/entries"])("refuses %s and writes nothing", async (target) => {
    const ws = makeWorkspace({ "knowledge/a.md": "# A\n", ".git/config": "[core]\n" })
    open.push(ws)
    const before = { ...snapshot(ws.root), git: fs.readFileSync(path.join(ws.root, ".git/config"), "utf8") }
    const exists = fs.existsSync(path.join(ws.root, target))
    const change: FileChange = { bundle: "notes", path: target, beforeHash: exists ? sha256(fs.readFileSync(path.join(ws.root, target), "utf8")) : null, after: "[core]\n\thooksPath = /tmp/evil\n" }
    const result = await tryApply(engineOver(ws), [{ bundle: "notes", path: "knowledge/b.md", beforeHash: null, after: "# B\n" }, change])
    expect(Either.isLeft(result) && result.left._tag).toBe("TransactionRefused")
    expect(Either.isLeft(result) && result.left.message).toMatch(/version-control metadata/)
    expect({ ...snapshot(ws.root), git: fs.readFileSync(path.join(ws.root, ".git/config"), "utf8") }).toEqual(before)
  })

  it("refuses deleting a file under .git/", async () => {
    const ws = makeWorkspace({ ".git/HEAD": "ref: refs/heads/main\n" })
    open.push(ws)
    const result = await tryApply(engineOver(ws), [{ bundle: "notes", path: ".git/HEAD", beforeHash: sha256("ref: refs/heads/main\n"), delete: true }])
    expect(Either.isLeft(result) && result.left._tag).toBe("TransactionRefused")
    expect(fs.existsSync(path.join(ws.root, ".git/HEAD"))).toBe(true)
  })

  it.each([
    ["data", "state.db"],
    ["data", "logs.db-wal"],
    ["data", "akm.lock"],
    ["data", "txn/x/journal.json"],
    ["data", "locks/mutation.lease"],
    ["data", "archive/blobs/sha256/aa/x"],
    ["data", "packets/p/in.json"],
    ["config", "config.yaml"],
    ["cache", "index.db"],
    ["cache", "sources/other/x.md"]
  ] as const)("refuses the %s dir's %s inside a bundle root", async (dir, rel) => {
    const ws = makeWorkspace({ "knowledge/a.md": "# A\n" })
    open.push(ws)
    const inner = path.join(ws.root, `.akm-${dir}`)
    const result = await tryApply(engineOver(ws, { [`${dir}Dir`]: inner }), [{ bundle: "notes", path: `.akm-${dir}/${rel}`, beforeHash: null, after: "x" }])
    expect(Either.isLeft(result) && result.left._tag).toBe("TransactionRefused")
    expect(fs.existsSync(path.join(inner, rel))).toBe(false)
  })

  it("writes bundle files that lie beside the data dir's own state", async () => {
    const ws = makeWorkspace({ "knowledge/a.md": "# A\n" })
    open.push(ws)
    const result = await tryApply(engineOver(ws, { dataDir: path.dirname(ws.root) }), [{ bundle: "notes", path: "knowledge/b.md", beforeHash: null, after: "# B\n" }])
    expect(Either.isRight(result)).toBe(true)
  })
})
