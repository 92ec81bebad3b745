import { spawn } from "node:child_process"
import type { Workspace } from "./cli.js"

/**
 * Runs the test-only CLI entry point (cliWithCrashPoints.ts, bundled by
 * txHarness.bundleChild) with AKM_TX_CRASH_AT set, in a real child process.
 * `crashedAt` is the point it SIGKILLed itself at ("write#1"), when it did.
 */
export interface CrashRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly crashedAt: string | undefined
}

export const runCrashCli = (script: string, ws: Workspace, args: ReadonlyArray<string>, crashAt: string | undefined): Promise<CrashRun> =>
  new Promise((resolve, reject) => {
    const env: Record<string, string> = { ...ws.env }
    if (crashAt !== undefined) env.AKM_TX_CRASH_AT = crashAt
    const child = spawn(process.execPath, [script, ...args], { cwd: ws.root, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.once("error", reject)
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr, crashedAt: /akm-crash-point (\S+)/.exec(stderr)?.[1] }))
  })
