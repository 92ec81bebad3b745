// Time of `akm ledger add failure` with 1,000 records in the ledger (issue 17).
// Usage: node scripts/build.mjs && node bench/ledger-add.mjs [records]
// Makes a temp git repo and temp AKM_* dirs, writes N failure records, indexes once,
// then times a new failure (miss) and a recurrence (hit), three runs each.
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"

const n = Number(process.argv[2] ?? 1000)
const bin = resolve(fileURLToPath(new URL("..", import.meta.url)), "bin/akm.js")
const base = mkdtempSync(join(tmpdir(), "akm-ledger-bench-"))
const env = { ...process.env, AKM_CONFIG_DIR: join(base, "c"), AKM_DATA_DIR: join(base, "d"), AKM_CACHE_DIR: join(base, "k"), NO_COLOR: "1" }
const repo = join(base, "repo")
mkdirSync(repo)
const akm = (...args) => execFileSync(process.execPath, [bin, ...args, "--format", "json"], { cwd: repo, env, encoding: "utf8" })
try {
  execFileSync("git", ["init", "-q"], { cwd: repo })
  akm("init", "project")
  const dir = join(repo, ".ai/ledger/failure")
  mkdirSync(dir, { recursive: true })
  for (let i = 0; i < n; i++) {
    const hex = i.toString(16).padStart(12, "0")
    const id = `bench-error-${hex}`
    writeFileSync(join(dir, `${id}.md`), `---\nkind: failure\nid: ${id}\ntitle: Bench failure ${i}\nfingerprint: ${id}\noccurrences:\n  - date: 2026-08-01\n    source: self-report\nsources:\n  - self-report\n---\n\n## Symptom\n\nBenchError number ${i} in module m${i}\n\n## Trigger\n\nrun ${i}\n\n## Root cause\n\ncause ${i}\n\n## Fix\n\nfix ${i}\n\n## Module\n\nsrc/m${i}\n\n## Operation\n\nop ${i}\n\n## Error class\n\nBenchError\n`)
  }
  akm("index")
  const time = (label, args) => {
    const runs = []
    for (let r = 0; r < 3; r++) {
      const t = performance.now()
      akm(...args(r))
      runs.push(performance.now() - t)
    }
    console.log(`${label}: ${runs.map((ms) => `${Math.round(ms)} ms`).join(", ")}`)
  }
  const fields = (module, line, r) => ["--field", `module=${module}`, "--field", `operation=migrate ${module}/0001.sql:${line}`, "--field", "error_class=LockTimeout", "--field", `symptom=LockTimeout after ${r}s`, "--field", "trigger=t", "--field", "root_cause=c", "--field", "fix=f"]
  time(`ledger add, a new failure (${n} records)`, (r) => ["ledger", "add", "failure", ...fields(`src/new${r}`, 10, r)])
  time(`ledger add, a recurrence (${n} records)`, (r) => ["ledger", "add", "failure", ...fields("src/new0", 20 + r, r), "--date", `2026-08-1${r}`])
} finally {
  rmSync(base, { recursive: true, force: true })
}
