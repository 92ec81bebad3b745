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
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
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
  { say: "Tell akm a page failed you: negative feedback with a reason is evidence for improve (the agent generator is configured: akm writes a work packet, no model inside)", args: ["feedback", "notes//ops/disk-full-runbook", "--negative", "--reason", "searched for 'server ran out of space' and it was not found"], before: () => useAgentGenerator() },
  { say: "What improve would attempt, and why: a dry run writes nothing and calls nothing", args: ["improve", "--dry-run"] },
  { say: "One improve pass: the agent generator writes a work packet (TASK.md: the evidence, the page and the bundle's rules)", args: ["improve"] },
  { say: "The agent writes its candidate into the packet's out/; submit verifies it (safety, then retrieval before/after in a sandbox index) and queues a proposal for review", args: ["proposal", "submit", "PACKET_ID"], before: () => writeCandidate() },
  { say: "A team's git repository (made here from the example notes): akm pins a commit and reads its tree into the cache, never touching the repository", args: ["bundle", "add", "GIT_URL", "--name", "team"], before: () => makeTeamRepo() },
  { say: "A new commit upstream: update moves the pin and reindexes; a failed update would keep the last good revision", args: ["bundle", "update", "team"], before: () => commitToTeamRepo() },
  { say: "The new page is searchable under the bundle's own refs", args: ["search", "on-call handover", "--bundle", "team"] },
  { say: "A code repository (a temporary git repo made from examples/project): set up its knowledge as a project bundle", args: ["init", "project", "--dir", "PROJECT_DIR"], before: () => makeProjectRepo() },
  { say: "An agent hits a failure and records it once, the symptom as first seen", args: ["ledger", "add", "failure", "--bundle", "shop", "--title", "Migration lock timeout", ...demoFailure(17, "LockTimeout: migrate src/db/migrations/0042.sql:17 waited 5000ms for the orders table lock", "2026-08-14")] },
  { say: "The same failure twelve days later (another line, other times): the same fingerprint, so one record with a second occurrence", args: ["ledger", "add", "failure", "--bundle", "shop", ...demoFailure(93, "LockTimeout: migrate src/db/migrations/0042.sql:93 waited 12.5s for the orders table lock", "2026-08-26")] },
  { say: "Seen twice: distil asks whether it should become a rule, a skill or neither, with the rule already drafted", args: ["distil", "--bundle", "shop"] },
  { say: "A teammate edits rule 02 so it forbids what rule 01 mandates, on files both cover: the conflict is reported with the files and an ADR stub, never resolved (exit 1)", args: ["rules", "conflicts", "--bundle", "shop"], exit: 1, before: () => introduceConflict() },
  { say: "One contract, eleven agent router files (AGENTS.md, CLAUDE.md, Cursor, Copilot …), each with its size", args: ["routers", "write", "--bundle", "shop"] },
  { say: "Someone edits CLAUDE.md by hand inside the generated region: routers check names the file and the section (exit 1)", args: ["routers", "check", "--bundle", "shop"], exit: 1, before: () => handEditRouter() },
  { say: "Writing again restores the generated text; hand-written text outside the markers would be kept byte for byte", args: ["routers", "write", "--bundle", "shop"] },
  { say: "The dependency and component maps, from package.json and each component's README", args: ["maps", "write", "--bundle", "shop"] },
  { say: "The team decides the recurring failure is neither a rule nor a skill: a decision record, never asked again", args: ["distil", "decide", "FAILURE_ID", "--as", "neither", "--note", "lock_timeout and the retry already cover it", "--bundle", "shop"] },
  { say: "The conflict is resolved by hand (index builds go in a migration of their own); then one command runs the whole pipeline — capture, distil, harden, project, surface, index, lint — and ends with the questions", args: ["everything", "--all", "--bundle", "shop"], before: () => resolveConflict() },
  { say: "The brief's token use per tier (o200k tokens): lean", args: ["brief", "write", "--tier", "lean", "--bundle", "shop"] },
  { say: "… deep", args: ["brief", "write", "--tier", "deep", "--bundle", "shop"] },
  { say: "… and standard, the default, written back", args: ["brief", "write", "--tier", "standard", "--bundle", "shop"] },
  { say: "The CI gate: every check, nothing written; exit 0 now that the recurrence is decided and the rules agree", args: ["everything", "--check", "--bundle", "shop"] },
  { say: "A bundle with an env file (examples/runtime): installing it runs and injects nothing", args: ["bundle", "add", "examples/runtime", "--name", "runtime"] },
  { say: "Its keys, required or set, and descriptions: never a secret value", args: ["env", "list", "runtime//env/demo"] },
  { say: "Run a program with the values in its environment only (no shell); akm itself prints no value", args: ["env", "run", "--format", "text", "runtime//env/demo", "--", process.execPath, "-e", "console.log(`DEMO_TOKEN has ${process.env.DEMO_TOKEN.length} characters`)"] }
]

/** The fields of the demo's failure (spec 08 §2): the fingerprint comes from module, operation and error_class. */
function demoFailure(line, symptom, date) {
  return [
    "--field", "module=src/db",
    "--field", `operation=migrate src/db/migrations/0042.sql:${line}`,
    "--field", "error_class=LockTimeout",
    "--field", `symptom=${symptom}`,
    "--field", "trigger=npm run migrate while the nightly report holds a long transaction on orders",
    "--field", "root_cause=ALTER TABLE waits for an ACCESS EXCLUSIVE lock behind a long-running read transaction",
    "--field", "fix=run migrations with SET lock_timeout = '3s' and retry with backoff",
    "--date", date
  ]
}

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

const projectRepo = join(workspace, "shop")
const makeProjectRepo = () => {
  cpSync(join(repo, "examples", "project"), projectRepo, { recursive: true })
  const inProject = (...args) => execFileSync("git", ["-c", "user.name=akm demo", "-c", "user.email=demo@example.invalid", "-c", "init.defaultBranch=main", ...args], { cwd: projectRepo, stdio: "ignore", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } })
  inProject("init", "-q")
  inProject("add", "-A")
  inProject("commit", "-q", "-m", "shop")
}

/** The improve steps: config.yaml names the agent generator (no model), and the agent's candidate is a clearer description. */
const useAgentGenerator = () => appendFileSync(join(env.AKM_CONFIG_DIR, "config.yaml"), "improve:\n  generator:\n    kind: agent\n")
/** The packet that revises the runbook. */
const packetId = () =>
  readdirSync(join(env.AKM_DATA_DIR, "packets")).find((name) => JSON.parse(readFileSync(join(env.AKM_DATA_DIR, "packets", name, "packet.json"), "utf8")).bundle === "notes")
const writeCandidate = () => {
  const out = join(env.AKM_DATA_DIR, "packets", packetId(), "out", "ops")
  mkdirSync(out, { recursive: true })
  const page = readFileSync(join(repo, "examples", "notes", "ops", "disk-full-runbook.md"), "utf8")
  writeFileSync(join(out, "disk-full-runbook.md"), page.replace("description: Finding what filled a disk", "description: When a server runs out of space — finding what filled a disk"))
}
/** The example's rules agree (index builds get a migration of their own); the demo's copy makes rule 02 forbid what rule 01 mandates. */
const RULE_02 = join("rules", "02-concurrent-index-builds.md")
const introduceConflict = () => {
  const file = join(projectRepo, RULE_02)
  writeFileSync(file, readFileSync(file, "utf8").replace('{ must: true, subject: "build indexes concurrently in a migration of their own" }', '{ must: false, subject: "Run each migration inside one transaction." }'))
}
/** Resolved by hand: rule 02 back as the example ships it. */
const resolveConflict = () => writeFileSync(join(projectRepo, RULE_02), readFileSync(join(repo, "examples", "project", RULE_02), "utf8"))
/** The demo failure's id (its fingerprint). */
const failureId = () => readdirSync(join(projectRepo, ".ai", "ledger", "failure")).find((name) => name.endsWith(".md")).replace(/\.md$/, "")
const handEditRouter = () => {
  const file = join(projectRepo, "CLAUDE.md")
  writeFileSync(file, readFileSync(file, "utf8").replace("3. Never write secrets", "3. It is fine to write secrets"))
}

const argsFor = (step) => {
  const args = step.args.map((a) => (a === "GIT_URL" ? `file://${teamRepo}` : a === "PROJECT_DIR" ? projectRepo : a === "PACKET_ID" ? packetId() : a === "FAILURE_ID" ? failureId() : a))
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
