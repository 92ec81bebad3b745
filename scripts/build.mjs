// Builds the CLI and the library into dist/ with esbuild (spec 00 §4.1):
// ESM with code splitting so heavy modules load only in the commands that use
// them; better-sqlite3 stays external (a native addon).
import { build } from "esbuild"
import { readFileSync, rmSync, writeFileSync } from "node:fs"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true })

await build({
  entryPoints: { "cli/main": "src/cli/entry.ts", "lib/index": "src/index.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3"],
  banner: { js: 'import { createRequire as __akmCreateRequire } from "node:module"; const require = __akmCreateRequire(import.meta.url);' },
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning"
})

// The --version fast path in bin/akm.js reads this instead of loading the CLI.
writeFileSync(new URL("../dist/version.json", import.meta.url), `${JSON.stringify({ version: pkg.version })}\n`)
