// `npm test`, `npm run demo` and `npm run bench` build dist/ when it is missing
// or older than the sources, so a fresh clone needs no separate build step.
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { execFileSync } from "node:child_process"

const newest = (dir) => {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return latest
}

const built = "dist/cli/main.cjs"
const stale = !existsSync(built) || newest("src") > statSync(built).mtimeMs || statSync("package.json").mtimeMs > statSync(built).mtimeMs
if (stale) execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
