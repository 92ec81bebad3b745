import { execFile } from "node:child_process"
import { join } from "node:path"
import { repoRoot, type Workspace } from "./cli.js"

// Runs the built CLI's entry points in a child `node -e`, so the fast-path tests
// can compare a fast path with the full @effect/cli command on the same argv.

export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

type Env = Readonly<Record<string, string>>

/** Runs `script` with `node -e` in the workspace; args follow `--`. */
export const runNodeScript = (script: string, args: ReadonlyArray<string>, ws: Workspace, env: Env = {}): Promise<Run> =>
  new Promise((done, fail) => {
    execFile(process.execPath, ["-e", script, "--", ...args], { cwd: ws.root, env: { ...ws.env, ...env }, encoding: "utf8", timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
      if (code === null) return fail(new Error(`node -e did not run: ${error?.message}\n${stderr}`))
      done({ code, stdout, stderr })
    })
  })

/** A built CLI bundle in dist/cli, quoted for a script. */
export const distCli = (name: string) => JSON.stringify(join(repoRoot, "dist", "cli", `${name}.cjs`))
/** The script's own argv (after `--`). */
export const ARGV = "process.argv.slice(1)"

/** The full CLI alone: main.cjs's runCli, as bin/akm.js runs it when a fast path declines. */
export const runFull = (ws: Workspace, args: ReadonlyArray<string>, env?: Env) =>
  runNodeScript(`require(${distCli("main")}).runCli(${ARGV}).then((code) => { process.exitCode = code })`, args, ws, env)

/** One fast path alone (`bundle` in dist/cli, its `run` export): exit 99 with FALLBACK on stderr when it hands the command over. */
export const runFastPath = (bundle: string, run: string, ws: Workspace, args: ReadonlyArray<string>, env?: Env) =>
  runNodeScript(
    `require(${distCli(bundle)}).${run}(${ARGV}).then((code) => { if (code === undefined) { process.stderr.write("FALLBACK"); process.exitCode = 99 } else process.exitCode = code })`,
    args,
    ws,
    env
  )
