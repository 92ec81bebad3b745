#!/usr/bin/env node
// akm's launcher. `--version` is answered here without loading the CLI: it is
// the call agents make most to probe for akm, and start-up is paid on every
// call (docs/decisions/0002-start-up.md). Everything else loads dist/cli/main.js.
const args = process.argv.slice(2)
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { readFileSync } = await import("node:fs")
  const { version } = JSON.parse(readFileSync(new URL("../dist/version.json", import.meta.url), "utf8"))
  process.stdout.write(`${version}\n`)
} else {
  await import("../dist/cli/main.js")
}
