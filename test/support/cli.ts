import { execFile, execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, isAbsolute, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * Runs the built CLI (`node bin/akm.js …`) as a real child process — no shell —
 * in a temp workspace of its own: AKM_*_DIR, XDG_*_HOME and HOME all point
 * under os.tmpdir(), so a spawned akm can never reach the real home (R-WS-3).
 */

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")
const bin = join(repoRoot, "bin", "akm.js")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** stdout parsed as JSON (the result of a command run with the json format). */
  readonly json: <T = any>() => T // eslint-disable-line @typescript-eslint/no-explicit-any
  /** stderr parsed as the error envelope `{ ok: false, error: { code, message, hint } }`. */
  readonly error: () => { readonly ok: false; readonly error: { readonly code: string; readonly message: string; readonly hint: string } }
}

export interface RunOptions {
  /** The child's working directory (relative bundle paths resolve against it); default: the workspace root. */
  readonly cwd?: string
  /** Extra variables, applied over the workspace's own. */
  readonly env?: Readonly<Record<string, string>>
  /** Bytes for the child's stdin, which is then closed (left open and unread when absent). */
  readonly input?: string | Uint8Array
}

export interface Workspace {
  /** The temp dir holding everything below; removed by cleanup(). */
  readonly root: string
  readonly configDir: string
  readonly dataDir: string
  readonly cacheDir: string
  readonly home: string
  /** The environment every child gets. */
  readonly env: Readonly<Record<string, string>>
  readonly run: (args: ReadonlyArray<string>, options?: RunOptions) => Promise<CliResult>
  /** Makes a folder under the root with the given files (path → content) and returns its path. */
  readonly folder: (name: string, files?: Readonly<Record<string, string>>) => string
  readonly cleanup: () => void
}

// --- dist/ must be built before the first spawn --------------------------------------------

let built = false

/** Sleeps without an event loop turn: the build guard runs synchronously at first spawn. */
const sleepSync = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Test files run in parallel workers and scripts/build.mjs starts by deleting
 * dist/, so a build racing a spawn in another worker would break it: workers
 * take turns through a lock dir, and the later ones find dist fresh and skip.
 */
const ensureBuilt = (): void => {
  if (built) return
  const lock = join(tmpdir(), `akm-ensure-build-${createHash("sha256").update(repoRoot).digest("hex").slice(0, 12)}.lock`)
  const deadline = Date.now() + 120_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      if (Date.now() - statSafe(lock) > 120_000) rmSync(lock, { recursive: true, force: true }) // left by a killed run
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`)
      sleepSync(50)
    }
  }
  try {
    execFileSync(process.execPath, ["scripts/ensure-build.mjs"], { cwd: repoRoot, stdio: "pipe" })
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
  built = true
}

const statSafe = (path: string): number => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return Date.now()
  }
}

// --- workspaces ------------------------------------------------------------------------------

const within = (path: string, dir: string): boolean => {
  const rel = relative(dir, path)
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))
}

/** Variables of the test runner that would change how the child prints. */
const dropped = new Set(["FORCE_COLOR", "NO_COLOR", "CLICOLOR_FORCE"])

/** A fresh temp workspace for several runs; call cleanup() when done (afterAll). */
export const makeWorkspace = (): Workspace => {
  // Inside the worker's temp dir when the home guard made one, so the run's teardown sweeps what a crash leaves.
  const parent = process.env.AKM_TEST_WORKER_DIR ?? tmpdir()
  const root = realpathSync(mkdtempSync(join(parent, "akm-cli-")))
  const dir = (name: string) => {
    const path = join(root, name)
    mkdirSync(path, { recursive: true })
    return path
  }
  const workspace = {
    AKM_CONFIG_DIR: join(root, "config"),
    AKM_DATA_DIR: join(root, "data"),
    AKM_CACHE_DIR: join(root, "cache"),
    XDG_CONFIG_HOME: dir("xdg-config"),
    XDG_DATA_HOME: dir("xdg-data"),
    XDG_CACHE_HOME: dir("xdg-cache"),
    HOME: dir("home")
  }
  // The guard of R-WS-3 for spawned processes: nothing the child resolves may leave the temp dir.
  const tmp = realpathSync(tmpdir())
  for (const [name, path] of Object.entries(workspace)) {
    if (!within(path, tmp)) throw new Error(`R-WS-3: ${name}=${path} is not under ${tmp}`)
  }
  const inherited = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !dropped.has(e[0])))
  const env = { ...inherited, ...workspace, NO_COLOR: "1" }

  return {
    root,
    configDir: workspace.AKM_CONFIG_DIR,
    dataDir: workspace.AKM_DATA_DIR,
    cacheDir: workspace.AKM_CACHE_DIR,
    home: workspace.HOME,
    env,
    run: (args, options = {}) => spawnAkm(args, { cwd: options.cwd ?? root, env: { ...env, ...options.env }, input: options.input }),
    folder: (name, files = {}) => {
      const path = dir(name)
      for (const [file, content] of Object.entries(files)) {
        mkdirSync(dirname(join(path, file)), { recursive: true })
        writeFileSync(join(path, file), content)
      }
      return path
    },
    cleanup: () => rmSync(root, { recursive: true, force: true })
  }
}

/** One run in a workspace of its own, removed afterwards. */
export const runAkm = async (args: ReadonlyArray<string>, options: RunOptions = {}): Promise<CliResult> => {
  const workspace = makeWorkspace()
  try {
    return await workspace.run(args, options)
  } finally {
    workspace.cleanup()
  }
}

const spawnAkm = (args: ReadonlyArray<string>, options: { cwd: string; env: Record<string, string>; input?: string | Uint8Array | undefined }): Promise<CliResult> => {
  ensureBuilt()
  return new Promise((done, fail) => {
    const child = execFile(process.execPath, [bin, ...args], { cwd: options.cwd, env: options.env, encoding: "utf8", timeout: 20_000 }, (error, stdout, stderr) => {
      // A non-zero exit is a result to assert on; only a failure to run at all (or a timeout) is an error.
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
      if (code === null || error?.killed === true) return fail(new Error(`akm ${args.join(" ")} did not run: ${error?.message}\n${stderr}`))
      done(result(args, code, stdout, stderr))
    })
    // A child may stop reading early (a refused oversized value): a broken pipe is its answer, not an error here.
    child.stdin?.on("error", () => undefined)
    if (options.input !== undefined) child.stdin?.end(options.input)
  })
}

const result = (args: ReadonlyArray<string>, code: number, stdout: string, stderr: string): CliResult => {
  const parse = (label: string, text: string) => {
    try {
      return JSON.parse(text)
    } catch {
      throw new Error(`akm ${args.join(" ")} (exit ${code}): ${label} is not JSON:\n${text}\nstderr:\n${stderr}`)
    }
  }
  return { code, stdout, stderr, json: () => parse("stdout", stdout), error: () => parse("stderr", stderr) }
}
