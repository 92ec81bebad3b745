// `npm run demo`: runs the real CLI (bin/akm.js) step by step against a
// temporary workspace and prints each command with its output. It never
// touches the real home: AKM_CONFIG_DIR / AKM_DATA_DIR / AKM_CACHE_DIR point
// into a fresh temp dir, removed at the end unless --keep is given.
//
// Later features extend the demo by appending to `steps`. A step is
//   { say: "what this shows", args: ["bundle", "list"], exit?: 0, before?: () => void }
// `--format text` is added unless the step gives its own --format or sets
// `plain: true` (for commands without output formats, such as completions).
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const steps = [
  { say: "Create the workspace: config.yaml and the three databases", args: ["init"] },
  { say: "Add the example OKF notes as a bundle named 'notes'", args: ["bundle", "add", "examples/notes", "--name", "notes"] },
  { say: "Where everything lives", args: ["info"] },
  { say: "The configured bundles (* marks the default bundle)", args: ["bundle", "list"] },
  { say: "One bundle in detail", args: ["bundle", "show", "notes"] },
  { say: "The desired configuration akm wrote", args: ["config", "list"] },
  { say: "A working bundle of your own (in the temporary workspace, so the example notes stay untouched)", args: ["bundle", "create", "mine"] },
  { say: "Remember something: akm writes a memory file through a proposal it accepts at once", args: ["remember", "Deploys freeze on Fridays after 3pm.", "--bundle", "mine", "--tag", "deploy"] },
  { say: "Every write is a proposal you can review and revert", args: ["proposal", "list"] },
  { say: "Bring the index up to date: unchanged bundles are only stat'ed, changed ones re-read", args: ["index"] },
  { say: "Search every bundle: a question in your own words, best match first", args: ["search", "what to do when the disk is full"] },
  { say: "Words match their other forms (retried → retry) and filters narrow the list", args: ["search", "retried requests", "--type", "Guide", "--limit", "3"] },
  { say: "Browse a folder instead of ranking: everything under ops/, in ref order", args: ["search", "notes//ops/"] },
  { say: "One item at outline level: its card, headings with their #slugs, links, and what to run next", args: ["show", "notes//engineering/http-caching", "--level", "outline"] },
  { say: "A team's git repository (made here from the example notes): akm pins a commit and reads its tree into the cache, never touching the repository", args: ["bundle", "add", "GIT_URL", "--name", "team"], before: () => makeTeamRepo() },
  { say: "A new commit upstream: update moves the pin and reindexes; a failed update would keep the last good revision", args: ["bundle", "update", "team"], before: () => commitToTeamRepo() },
  { say: "The new page is searchable under the bundle's own refs", args: ["search", "on-call handover", "--bundle", "team"] }
]

const repo = fileURLToPath(new URL("..", import.meta.url))
const keep = process.argv.includes("--keep")
const workspace = mkdtempSync(join(tmpdir(), "akm-demo-"))
const env = {
  ...process.env,
  AKM_CONFIG_DIR: join(workspace, "config"),
  AKM_DATA_DIR: join(workspace, "data"),
  AKM_CACHE_DIR: join(workspace, "cache")
}

// With a handler installed, Ctrl-C stops the running step (the child gets the
// signal too) and the workspace is still cleaned up below.
let interrupted = false
process.on("SIGINT", () => {
  interrupted = true
})

const teamRepo = join(workspace, "team-kb")
const git = (...args) => execFileSync("git", ["-c", "user.name=akm demo", "-c", "user.email=demo@example.invalid", "-c", "init.defaultBranch=main", ...args], { cwd: teamRepo, stdio: "ignore", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } })
const makeTeamRepo = () => {
  cpSync(join(repo, "examples", "notes"), teamRepo, { recursive: true })
  git("init", "-q")
  git("add", "-A")
  git("commit", "-q", "-m", "team knowledge")
}
const commitToTeamRepo = () => {
  writeFileSync(join(teamRepo, "ops", "on-call-handover.md"), "---\ntype: Guide\ntitle: On-call handover\ndescription: What to hand over at the end of an on-call shift.\n---\n# On-call handover\n\nWrite down open incidents, silenced alerts and pending deploys before the next person takes the pager.\n")
  git("add", "-A")
  git("commit", "-q", "-m", "add the on-call handover guide")
}

const argsFor = (step) => {
  const args = step.args.map((a) => (a === "GIT_URL" ? `file://${teamRepo}` : a))
  return step.plain === true || args.includes("--format") ? args : [...args, "--format", "text"]
}

const quote = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)

/** Runs one step; returns undefined on success, else why it failed. */
const run = (step) => {
  step.before?.()
  const args = argsFor(step)
  process.stdout.write(`\n# ${step.say}\n$ akm ${args.map(quote).join(" ")}\n`)
  const result = spawnSync(process.execPath, [join(repo, "bin", "akm.js"), ...args], { cwd: repo, env, encoding: "utf8" })
  if (result.stdout) process.stdout.write(result.stdout)
  if (result.stderr) process.stderr.write(result.stderr)
  if (result.error !== undefined) return `could not start: ${result.error.message}`
  if (result.signal !== null) return `stopped by ${result.signal}`
  const expected = step.exit ?? 0
  return result.status === expected ? undefined : `exited ${result.status}, expected ${expected}`
}

process.stdout.write(`akm demo — temporary workspace ${workspace}\n`)
let failure
for (const [index, step] of steps.entries()) {
  const problem = run(step)
  if (problem !== undefined || interrupted) {
    failure = `step ${index + 1} (akm ${argsFor(step).join(" ")}) ${problem ?? "was interrupted"}`
    break
  }
}

if (keep) {
  process.stdout.write(
    `\nworkspace kept at ${workspace}\nto keep using it:\n` +
      `  export AKM_CONFIG_DIR=${env.AKM_CONFIG_DIR} AKM_DATA_DIR=${env.AKM_DATA_DIR} AKM_CACHE_DIR=${env.AKM_CACHE_DIR}\n`
  )
} else {
  rmSync(workspace, { recursive: true, force: true })
}

if (failure !== undefined) {
  process.stderr.write(`\ndemo failed: ${failure}\n`)
  process.exitCode = interrupted ? 130 : 1
} else {
  process.stdout.write(`\ndemo finished: ${steps.length} steps ran${keep ? "" : "; the temporary workspace was removed"}\n`)
}
