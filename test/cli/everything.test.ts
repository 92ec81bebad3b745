import { createHash } from "node:crypto"
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, type Workspace } from "../support/cli.js"
import { makeGitRepo } from "../support/gitRepo.js"

// Issue 22 items 3, 4, 6, 7 against dist/: akm everything (R-SCP-2, R-SCP-3) and akm questions (R-SCP-1, R-SCP-4);
// the gate's checkers each fire on a broken tree and stay silent on a healthy one (R-CHK-1).

const SLOW = 300_000

const exampleFiles = (): Record<string, string> => {
  const root = join(repoRoot, "examples/project")
  const out: Record<string, string> = {}
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      if (statSync(full).isDirectory()) visit(full)
      else out[relative(root, full)] = readFileSync(full, "utf8")
    }
  }
  visit(root)
  return out
}

const failure = (line: number, date: string) => [
  "ledger", "add", "failure", "--title", "Migration lock timeout",
  "--field", "module=src/db",
  "--field", `operation=migrate src/db/migrations/0042.sql:${line}`,
  "--field", "error_class=LockTimeout",
  "--field", "symptom=migrate hangs, then LockTimeout on orders",
  "--field", "trigger=npm run migrate while the API serves traffic",
  "--field", "root_cause=a long-running transaction holds the table lock",
  "--field", "fix=run migrations with lock_timeout = 5s and retry",
  "--date", date
]

/** The example's rules agree; a teammate's edit makes rule 02 forbid what rule 01 mandates (the conflict the gate must name). */
const RULE_02 = "rules/02-concurrent-index-builds.md"
const SHIPPED_MANDATE = `{ must: true, subject: "build indexes concurrently in a migration of their own" }`
const introduceConflict = (dir: string) => {
  const file = join(dir, RULE_02)
  const text = readFileSync(file, "utf8")
  expect(text).toContain(SHIPPED_MANDATE)
  writeFileSync(file, text.replace(SHIPPED_MANDATE, `{ must: false, subject: "Run each migration inside one transaction." }`))
}

type Step = { step: string; status: string; problems: Array<string> }
type Result = { ok: boolean; steps: Array<Step>; plan: { stations: Array<{ station: string; work: boolean }> }; questions: { asked: Array<{ id: string }> } }
const ran = (r: Result) => r.steps.filter((s) => s.status === "ran").map((s) => s.step)
const problems = (r: Result) => r.steps.flatMap((s) => s.problems)

/** Every file's hash except .git: what --check must leave exactly as it was. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const visit = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      if (name === ".git") continue
      const child = rel === "" ? name : `${rel}/${name}`
      if (statSync(join(dir, child)).isDirectory()) visit(child)
      else out[child] = createHash("sha256").update(readFileSync(join(dir, child))).digest("hex")
    }
  }
  visit("")
  return out
}

const setUp = async (workspace: Workspace, name: string, extra: Readonly<Record<string, string>> = {}) => {
  const repo = makeGitRepo(join(workspace.root, name), workspace.home, { ...exampleFiles(), ...extra })
  const init = await workspace.run(["init", "project"], { cwd: repo.dir })
  expect(init.code, init.stderr).toBe(0)
  return repo
}

describe("everything on the example project: the issue's done-when", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("the done-when: after distil decide on the recurring failure, --all then --check exit 0 and --check writes nothing; an introduced rule conflict fails it by name, as do a drifted router, brief or a malformed ledger", async () => {
    const repo = await setUp(workspace, "shop")
    const dir = repo.dir
    // The shipped example is conflict-free: the conflict below is this test's own.
    expect((await workspace.run(["rules", "conflicts"], { cwd: dir })).code).toBe(0)
    // The example's recurring failure: the same lock timeout twice.
    for (const [line, date] of [[17, "2026-08-14"], [93, "2026-08-26"]] as const) expect((await workspace.run(failure(line, date), { cwd: dir })).code).toBe(0)
    // The recurrence is the first question of the batch.
    const recurring = (await workspace.run(["questions"], { cwd: dir })).json<Result["questions"]>().asked[0]!.id
    expect(recurring).toMatch(/^failure\/lock-timeout-/)

    // Fires: the recurrence waits for a decision.
    const undecided = await workspace.run(["everything", "--check", "--format", "text"], { cwd: dir })
    expect(undecided.code).toBe(1)
    expect(undecided.stdout).toContain(`undecided recurrence: ${recurring}`)

    expect((await workspace.run(["distil", "decide", recurring, "--as", "neither", "--note", "the lock timeout and retry already cover it"], { cwd: dir })).code).toBe(0)
    const all = await workspace.run(["everything", "--all"], { cwd: dir })
    expect(all.code, all.stderr).toBe(0)
    expect(ran(all.json<Result>())).toEqual(["CAPTURE", "DISTIL", "HARDEN", "PROJECT", "SURFACE", "INDEX", "LINT"])
    const before = snapshot(dir)
    const gate = await workspace.run(["everything", "--check"], { cwd: dir })
    expect(gate.code, JSON.stringify(problems(gate.json<Result>()))).toBe(0)
    expect(problems(gate.json<Result>())).toEqual([])
    expect(snapshot(dir)).toEqual(before)

    // Fires: a rule conflict introduced by hand.
    const rule = join(dir, RULE_02)
    const agreed = readFileSync(rule, "utf8")
    introduceConflict(dir)
    const conflict = await workspace.run(["everything", "--check", "--format", "text"], { cwd: dir })
    expect(conflict.code).toBe(1)
    expect(conflict.stdout).toMatch(/rule conflict: 01 \(rules\/01-migrations-in-one-transaction\.md:\d+\) and 02 \(rules\/02-concurrent-index-builds\.md:\d+\)/)
    writeFileSync(rule, agreed)

    // Fires: a hand edit inside a router's generated region.
    const claude = join(dir, "CLAUDE.md")
    const router = readFileSync(claude, "utf8")
    writeFileSync(claude, router.replace("Never write secrets", "It is fine to write secrets"))
    const drifted = await workspace.run(["everything", "--check", "--format", "text"], { cwd: dir })
    expect(drifted.code).toBe(1)
    expect(drifted.stdout).toContain("drifted router: CLAUDE.md")
    writeFileSync(claude, router)

    // Fires: a briefed rule changed since the brief was written.
    const ruleOne = join(dir, "rules/01-migrations-in-one-transaction.md")
    const one = readFileSync(ruleOne, "utf8")
    writeFileSync(ruleOne, one.replace("wraps every file in BEGIN/COMMIT", "wraps every file in one BEGIN/COMMIT"))
    const stale = await workspace.run(["everything", "--check", "--format", "text"], { cwd: dir })
    expect(stale.code).toBe(1)
    expect(stale.stdout).toContain("drifted brief: ")
    writeFileSync(ruleOne, one)

    // Fires: a ledger record that does not parse.
    writeFileSync(join(dir, ".ai/ledger/failure/broken.md"), "---\nkind: failure\nid: [\n---\n")
    const malformed = await workspace.run(["everything", "--check", "--format", "text"], { cwd: dir })
    expect(malformed.code).toBe(1)
    expect(malformed.stdout).toContain("malformed ledger: .ai/ledger/failure/broken.md")
  }, SLOW)

  it("scoped: a typo in an unbriefed doc runs no station; a briefed doc runs SURFACE only; a second pass over the same change runs nothing", async () => {
    const repo = await setUp(workspace, "scoped", {
      "docs/business/refunds.md": "# Refunds\n\nRefunds over €250 need a second approver.\n",
      "docs/notes/history.md": `# History\n\n${"How the shop grew. ".repeat(30)}\n`
    })
    const dir = repo.dir
    expect((await workspace.run(["everything", "--all"], { cwd: dir })).code).toBe(0)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the pipeline's output")
    // The commit is CAPTURE's input (a new commit to mine) and nobody else's.
    expect(ran((await workspace.run(["everything"], { cwd: dir })).json<Result>())).toEqual(["CAPTURE", "INDEX", "LINT"])

    const index = JSON.parse(readFileSync(join(dir, ".ai/index.json"), "utf8")) as { items: Array<{ path: string; in_brief: boolean }> }
    expect(index.items.find((e) => e.path === "docs/notes/history.md")?.in_brief).toBe(false)
    writeFileSync(join(dir, "docs/notes/history.md"), readFileSync(join(dir, "docs/notes/history.md"), "utf8").replace("grew", "grow"))
    const plan = await workspace.run(["scope", "plan"], { cwd: dir })
    expect(plan.json<{ stations: Array<{ work: boolean }> }>().stations.filter((s) => s.work)).toEqual([])
    const typo = await workspace.run(["everything"], { cwd: dir })
    expect(typo.code, typo.stderr).toBe(0)
    expect(ran(typo.json<Result>())).toEqual([])

    writeFileSync(join(dir, "docs/business/refunds.md"), "# Refunds\n\nRefunds over €300 need a second approver.\n")
    const business = await workspace.run(["everything"], { cwd: dir })
    expect(business.code, business.stderr).toBe(0)
    expect(ran(business.json<Result>())).toEqual(["SURFACE", "INDEX", "LINT"])
    expect(readFileSync(join(dir, ".ai/BRIEF.md"), "utf8")).toContain("€300")
    // Since its last run: the same change again is no new work.
    const second = await workspace.run(["everything"], { cwd: dir })
    expect(ran(second.json<Result>())).toEqual([])
    // Committing what the pass saw is work for CAPTURE only (a new commit to mine), then none.
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "refunds")
    const committed = await workspace.run(["everything"], { cwd: dir })
    expect(ran(committed.json<Result>())).toEqual(["CAPTURE", "INDEX", "LINT"])
    expect(ran((await workspace.run(["everything"], { cwd: dir })).json<Result>())).toEqual([])
  }, SLOW)

  it("a detached HEAD and a repository with no commits still plan", async () => {
    const repo = await setUp(workspace, "detached")
    repo.commit({}, "init project")
    repo.commit({ "docs/business/fees.md": "# Fees\n\nA 2% fee on card payments.\n" }, "fees")
    repo.git("checkout", "-q", "--detach", "HEAD~1")
    const plan = await workspace.run(["scope", "plan"], { cwd: repo.dir })
    expect(plan.code, plan.stderr).toBe(0)
    const fresh = makeGitRepo(join(workspace.root, "fresh"), workspace.home, exampleFiles())
    fresh.git("rm", "-q", "--cached", "-r", ".")
    expect((await workspace.run(["init", "project"], { cwd: fresh.dir })).code).toBe(0)
    const run = await workspace.run(["everything"], { cwd: fresh.dir })
    expect(run.code, run.stderr).toBe(0)
  }, SLOW)
})

describe("questions: the interrupt budget and nothing asked twice", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  const ask = (n: number, asked: string) => ["ledger", "add", "question", "--title", `Question ${n}`, "--field", `asked=${asked}`, "--field", "answer=open", "--field", "answered_by=-", "--field", "date=2026-11-01"]

  it("prints at most the budget, ranked, keeps the rest open; an answer is recorded with every field and never asked again", async () => {
    const repo = await setUp(workspace, "qs")
    const dir = repo.dir
    repo.git("config", "user.name", "Dana Reviewer")
    const topics = ["Which currency do refunds use", "Who owns the payments service", "How long are orders kept", "Is the EU region active-active", "Which queue does billing read", "What is the checkout timeout", "Do partners get webhooks"]
    for (const [i, t] of topics.entries()) expect((await workspace.run(ask(i + 1, `${t}?`), { cwd: dir })).code).toBe(0)
    for (const [line, date] of [[17, "2026-08-14"], [93, "2026-08-26"]] as const) expect((await workspace.run(failure(line, date), { cwd: dir })).code).toBe(0)

    type Batch = { budget: number; asked: Array<{ id: string; source: string; asked: string }>; kept: Array<{ id: string }>; answered: Array<{ question: { id: string }; answer: { ref: string } }> }
    const first = (await workspace.run(["questions"], { cwd: dir })).json<Batch>()
    expect(first.asked).toHaveLength(5)
    expect(first.kept).toHaveLength(3)
    expect(first.asked[0]).toMatchObject({ source: "recurrence" })
    const second = (await workspace.run(["questions"], { cwd: dir })).json<Batch>()
    expect(second.asked.map((q) => q.id)).toEqual(first.asked.map((q) => q.id))

    const config = join(dir, ".ai/config.json")
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), interruptBudget: 3 }, null, 2))
    const text = await workspace.run(["questions", "--format", "text"], { cwd: dir })
    expect(text.stdout.match(/^\d+\. /gm)).toHaveLength(3)
    expect(text.stdout).toContain("5 more kept open for the next pass")

    const target = first.asked[1]!.id
    expect(target).toBe("question/question-1")
    writeFileSync(join(dir, "docs-answer.md"), "# Answers\n")
    const answered = await workspace.run(["questions", "answer", target, "--answer", "EUR, always", "--route-to", "docs-answer.md"], { cwd: dir })
    expect(answered.code, answered.stderr).toBe(0)
    const record = readFileSync(join(dir, `.ai/ledger/${target}.md`), "utf8")
    expect(record).toMatch(/## Answer\s+EUR, always/)
    expect(record).toMatch(/## Answered by\s+Dana Reviewer/)
    expect(record).toContain(`## Date\n\n${new Date().toISOString().slice(0, 10)}`)
    expect(record).toMatch(/## Routed to\s+docs-answer\.md/)
    expect(record).toMatch(/## Asked\s+/)

    // The same question asked again in other words is shown with its answer, not asked.
    expect((await workspace.run(ask(8, "What currency do refunds use?"), { cwd: dir })).code).toBe(0)
    const after = (await workspace.run(["questions", "--limit", "20"], { cwd: dir })).json<Batch>()
    expect(after.asked.map((q) => q.id)).not.toContain(target)
    expect(after.asked.map((q) => q.id)).not.toContain("question/question-8")
    expect(after.answered).toEqual([expect.objectContaining({ question: expect.objectContaining({ id: "question/question-8" }), answer: expect.objectContaining({ ref: target }) })])
    const allIds = [...after.asked, ...after.kept].map((q) => q.id)
    expect(new Set(allIds).size).toBe(allIds.length)

    const bad = await workspace.run(["questions", "answer", "question/nope", "--answer", "x"], { cwd: dir })
    expect(bad.code).not.toBe(0)
    const recurrence = await workspace.run(["questions", "answer", first.asked[0]!.id, "--answer", "neither"], { cwd: dir })
    expect(recurrence.code).not.toBe(0)
    expect(recurrence.error().error.message).toContain("recurring failure")
  }, SLOW)

  it("the batch is kept in the workspace cache while the ledger's stats stay; a changed, added or same-size-edited record rebuilds it", async () => {
    const repo = await setUp(workspace, "cached")
    const dir = repo.dir
    expect((await workspace.run(ask(1, "Which currency do refunds use?"), { cwd: dir })).code).toBe(0)
    // Inputs younger than two seconds are never cached (a stat cannot tell a same-size edit within the clock's resolution).
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    type Batch = { asked: Array<{ id: string; asked: string }> }
    const ids = (b: Batch) => b.asked.map((q) => q.id)
    expect(ids((await workspace.run(["questions"], { cwd: dir })).json<Batch>())).toEqual(["question/question-1"])
    const derived = join(workspace.cacheDir, "derived")
    // This project's cache file: the one the last run wrote (others in the workspace belong to other projects).
    const cacheFile = readdirSync(derived).filter((n) => n.endsWith("-questions.json")).map((n) => join(derived, n)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!
    // A planted question shows that an unchanged ledger is read from the cache, not parsed again.
    const stored = JSON.parse(readFileSync(cacheFile, "utf8")) as { value: { questions: Array<Record<string, unknown>> } }
    stored.value.questions.push({ ...stored.value.questions[0], id: "question/planted" })
    writeFileSync(cacheFile, JSON.stringify(stored))
    expect(ids((await workspace.run(["questions"], { cwd: dir })).json<Batch>()).sort()).toEqual(["question/planted", "question/question-1"])

    // A same-size edit of a record (its stats change, its length does not) rebuilds the batch.
    const record = join(dir, ".ai/ledger/question/question-1.md")
    const text = readFileSync(record, "utf8")
    writeFileSync(record, text.replace("Which currency", "Whose currency"))
    expect(readFileSync(record).length).toBe(Buffer.byteLength(text))
    const edited = (await workspace.run(["questions"], { cwd: dir })).json<Batch>()
    expect(ids(edited)).toEqual(["question/question-1"])
    expect(edited.asked[0]!.asked).toContain("Whose currency")

    // A new record rebuilds it too.
    expect((await workspace.run(ask(2, "Who owns the payments service?"), { cwd: dir })).code).toBe(0)
    expect(ids((await workspace.run(["questions"], { cwd: dir })).json<Batch>()).sort()).toEqual(["question/question-1", "question/question-2"])
  }, SLOW)
})
