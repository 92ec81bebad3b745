import { runCli } from "./main.js"

// The CLI entry: every command but the --version fast path (bin/akm.js) lands here.
runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`${JSON.stringify({ ok: false, error: { code: "internal", message: String(error), hint: "this is a bug in akm; rerun with --verbose" } })}\n`)
    process.exitCode = 70
  }
)
