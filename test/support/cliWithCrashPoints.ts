/**
 * A test-only CLI entry point (R-TX-10): the same `runCli` as bin/akm.js, with
 * the CrashPoints test layer (crashPointsFromEnv.ts) added to every command,
 * so AKM_TX_CRASH_AT / AKM_TX_PAUSE_AT crash or pause this process at an
 * engine phase. test/support/txHarness.ts bundles it into node_modules/.cache;
 * it is never part of dist/.
 * Usage: node <bundle> <akm arguments…>
 */
import { runCli } from "../../src/cli/main.js"
import { CrashPointsFromEnv } from "./crashPointsFromEnv.js"

runCli(process.argv.slice(2), { crashPoints: CrashPointsFromEnv }).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exitCode = 70
  }
)
