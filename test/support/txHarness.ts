import { spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import Database from "better-sqlite3"
import { build } from "esbuild"
import { Effect, Layer } from "effect"
import { AdaptersBuiltIn } from "../../src/layers/adapters/registry.js"
import { BundleFilesNode } from "../../src/layers/fs/BundleFilesNode.js"
import { CrashPointsNone } from "../../src/layers/fs/transaction/CrashPoints.js"
import { TransactionEngineLive } from "../../src/layers/fs/TransactionEngine.js"
import { ChangeValidatorFull } from "../../src/layers/validation/ChangeValidatorIndexed.js"
import { WorkspaceConfigLive } from "../../src/layers/fs/WorkspaceConfigFile.js"
import { Transaction } from "../../src/services/Transaction.js"
import type { ChildOp, ChildSpec } from "./txChild.js"

/**
 * Shared pieces of the transaction crash and concurrency tests: a real
 * workspace with one writable bundle, the child driver bundled once per test
 * file, byte-level tree snapshots, and the in-process engine over the same
 * workspace for setting up states.
 */

export const projectRoot = fileURLToPath(new URL("../..", import.meta.url))

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

/**
 * Bundles a test-only entry point (test/support/txChild.ts by default) into an ES module inside node_modules/.cache
 * (so better-sqlite3, a native addon kept external, resolves from there).
 * Returns the script path and a function removing it.
 */
export const bundleChild = async (entry = "txChild"): Promise<{ readonly script: string; readonly dispose: () => void }> => {
  const dir = path.join(projectRoot, "node_modules", ".cache", "akm-test")
  fs.mkdirSync(dir, { recursive: true })
  const script = path.join(dir, `${entry}-${process.pid}-${randomBytes(4).toString("hex")}.mjs`)
  await build({
    entryPoints: [path.join(projectRoot, "test", "support", `${entry}.ts`)],
    outfile: script,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["better-sqlite3"],
    // Bundled CommonJS dependencies call require(), which an ES module lacks.
    banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
    logLevel: "warning"
  })
  return { script, dispose: () => fs.rmSync(script, { force: true }) }
}

export interface TxWorkspace {
  readonly base: string
  readonly configDir: string
  readonly dataDir: string
  readonly cacheDir: string
  /** The bundle root (real path). */
  readonly root: string
  readonly dispose: () => void
}

export interface WorkspaceOptions {
  readonly adapter?: string
  readonly writable?: boolean
  readonly gitCommit?: boolean
  /** Extra bundles: name → files. */
  readonly others?: Readonly<Record<string, Readonly<Record<string, string>>>>
}

const writeTree = (root: string, files: Readonly<Record<string, string>>) => {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
}

/** A workspace whose config names bundle "notes" (akm adapter) over a root holding `files`. */
export const makeWorkspace = (files: Readonly<Record<string, string>>, options: WorkspaceOptions = {}): TxWorkspace => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-tx-")))
  const root = path.join(base, "notes")
  fs.mkdirSync(root)
  writeTree(root, files)
  const bundle = (name: string, dir: string, extra: string) =>
    `  ${name}:\n    source: { kind: filesystem, path: ${JSON.stringify(dir)} }\n    adapter: ${options.adapter ?? "akm"}\n${extra}`
  const extra = `${options.writable === false ? "    writable: false\n" : ""}${options.gitCommit === true ? "    git: { commit: true }\n" : ""}`
  let config = `bundles:\n${bundle("notes", root, extra)}`
  for (const [name, other] of Object.entries(options.others ?? {})) {
    const dir = path.join(base, name)
    fs.mkdirSync(dir)
    writeTree(dir, other)
    config += bundle(name, dir, "")
  }
  const configDir = path.join(base, "config")
  fs.mkdirSync(configDir)
  fs.writeFileSync(path.join(configDir, "config.yaml"), config)
  return {
    base,
    configDir,
    dataDir: path.join(base, "data"),
    cacheDir: path.join(base, "cache"),
    root,
    dispose: () => fs.rmSync(base, { recursive: true, force: true })
  }
}

/** Every directory and file under a root with its type, mode and content hash; `.git` is left out. */
export const snapshot = (root: string): Record<string, string> => {
  const entries: Record<string, string> = {}
  const visit = (dir: string, rel: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      if (rel === "" && name === ".git") continue
      const file = path.join(dir, name)
      const key = rel === "" ? name : `${rel}/${name}`
      const stat = fs.lstatSync(file)
      const mode = (stat.mode & 0o7777).toString(8)
      if (stat.isDirectory()) {
        entries[key] = `dir ${mode}`
        visit(file, key)
      } else if (stat.isFile()) entries[key] = `file ${mode} ${createHash("sha256").update(fs.readFileSync(file)).digest("hex")}`
      else entries[key] = `other ${mode}`
    }
  }
  visit(root, "")
  return entries
}

/** The engine in this process over the workspace, for setting up states (never crashed). */
export const engineLayer = (ws: TxWorkspace) =>
  TransactionEngineLive.pipe(
    Layer.provide(AdaptersBuiltIn),
    Layer.provide(CrashPointsNone),
    Layer.provide(ChangeValidatorFull),
    Layer.provideMerge(BundleFilesNode),
    Layer.provideMerge(WorkspaceConfigLive({ configDir: ws.configDir, dataDir: ws.dataDir, cacheDir: ws.cacheDir }))
  )

export const inProcess = <A, E>(ws: TxWorkspace, f: (transaction: Transaction["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(Transaction, f).pipe(Effect.provide(engineLayer(ws))))

export interface ChildRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** The last JSON line the child printed. */
  readonly result: { readonly ok: boolean; readonly value?: unknown; readonly error?: Record<string, unknown> } | undefined
  /** The crash point the child died at ("write#1"), when it crashed. */
  readonly crashedAt: string | undefined
}

/** Runs the child driver on one operation; `onReady` fires when it prints "ready" (with spec.go set). */
export const runChild = (script: string, ws: TxWorkspace, op: ChildOp & { readonly go?: string }, env: Readonly<Record<string, string>> = {}, onReady?: () => void): Promise<ChildRun> => {
  const specFile = path.join(ws.base, `spec-${randomBytes(4).toString("hex")}.json`)
  const spec: ChildSpec = { ...op, workspace: { configDir: ws.configDir, dataDir: ws.dataDir, cacheDir: ws.cacheDir } }
  fs.writeFileSync(specFile, JSON.stringify(spec))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, specFile], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (stdout === "" && chunk.startsWith("ready")) onReady?.()
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.once("error", reject)
    child.once("close", (code, signal) => {
      fs.rmSync(specFile, { force: true })
      const last = stdout.trim().split("\n").filter((l) => l.startsWith("{")).pop()
      resolve({
        code,
        signal,
        stdout,
        stderr,
        result: last === undefined ? undefined : (JSON.parse(last) as ChildRun["result"]),
        crashedAt: /akm-crash-point (\S+)/.exec(stderr)?.[1]
      })
    })
  })
}

/** Transaction directories left under $DATA/txn (the set-aside folder excluded). */
export const leftoverJournals = (ws: TxWorkspace): ReadonlyArray<string> => {
  try {
    return fs.readdirSync(path.join(ws.dataDir, "txn")).filter((name) => name !== ".unresolved" && name !== ".finished")
  } catch {
    return []
  }
}

export const leaseHeld = (ws: TxWorkspace): boolean => fs.existsSync(path.join(ws.dataDir, "locks", "mutation.lease"))

export const integrityCheck = (file: string): string => {
  const db = new Database(file, { readonly: true })
  try {
    return (db.pragma("integrity_check", { simple: true }) as string)
  } finally {
    db.close()
  }
}

/** Crash points at or after the commit mark: recovery rolls these forward. */
export const POST_MARK = new Set(["after-commit-mark", "after-git-commit", "after-journal-removed"])

/** The phase a crash point belongs to, without its occurrence ("write#2" → "write"). */
export const pointName = (crashedAt: string): string => crashedAt.split("#")[0]!
