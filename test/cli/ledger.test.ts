import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync, existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { makeGitRepo } from "../support/gitRepo.js"

// Issue 17 end to end: akm init project, the ledger (R-LED-1..3), distil (R-DIS-1..3), checkers (R-CHK-1), redaction (spec 08 §2.1).

const SLOW = 180_000

/** Every file under a folder, as bytes joined (databases included). */
const allBytes = (dir: string): string => {
  if (!existsSync(dir)) return ""
  let out = ""
  for (const name of readdirSync(dir)) {
    const full = join(dir, name)
    const info = statSync(full)
    out += info.isDirectory() ? allBytes(full) : readFileSync(full).toString("latin1")
  }
  return out
}

const ledgerFiles = (root: string, kind: string): ReadonlyArray<string> =>
  existsSync(join(root, ".ai/ledger", kind)) ? readdirSync(join(root, ".ai/ledger", kind)).filter((n) => n.endsWith(".md")) : []

const failureFields = (line: number, symptom: string) => [
  "--field", "module=src/db",
  "--field", `operation=migrate src/db/0042.sql:${line}`,
  "--field", "error_class=LockTimeout",
  "--field", `symptom=${symptom}`,
  "--field", "trigger=npm run migrate",
  "--field", "root_cause=a long-running transaction holds the table lock",
  "--field", "fix=run migrations with a lock_timeout and retry"
]

const project = (workspace: Workspace, name: string, files: Readonly<Record<string, string>> = { "README.md": "# Shop\n" }) => {
  const repo = makeGitRepo(join(workspace.root, name), workspace.home, files)
  return repo.dir
}

describe("the issue's scenario: a failure seen twice becomes a drafted rule, and neither is final", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const SECRET = "pg-Secret-Value-7f3k9Q2x"
  const TOKEN = `ghp_${"Zq7Lm2Xc9Vb4Nn1Kk8Jj3Hh6Gg5Ff0Dd2Ss"}`

  it("init project → two failures → one record with two occurrences → distil drafts a rule → neither removes it for good; no secret written", async () => {
    const dir = project(workspace, "shop")
    writeFileSync(join(dir, ".env"), `DATABASE_PASSWORD=${SECRET}\n`)
    const init = await workspace.run(["init", "project"], { cwd: dir })
    expect(init.code, init.stderr).toBe(0)
    expect(init.json()).toMatchObject({ bundle: "shop", registered: true, created: [".ai/config.json", ".ai/ledger/.gitkeep", "context/router-contract.md"] })

    const first = await workspace.run(["ledger", "add", "failure", "--title", "Migration lock timeout", ...failureFields(17, `LockTimeout at 2026-08-14T10:02:11Z after 5000ms; connecting with password ${SECRET}`), "--field", `context=CI ran with GITHUB_TOKEN ${TOKEN}`, "--date", "2026-08-14"], { cwd: dir })
    expect(first.code, first.stderr).toBe(0)
    expect(first.json()).toMatchObject({ created: true, occurrences: 1, fingerprint: expect.stringMatching(/^lock-timeout-[0-9a-f]{12}$/) })
    const second = await workspace.run(["ledger", "add", "failure", ...failureFields(93, "LockTimeout at 2026-08-26T16:40:00Z after 12.5s"), "--date", "2026-08-26"], { cwd: dir })
    expect(second.code, second.stderr).toBe(0)
    expect(second.json()).toMatchObject({ created: false, changed: true, occurrences: 2, id: first.json().id })
    expect(ledgerFiles(dir, "failure")).toEqual([`${first.json().id}.md`])
    const record = readFileSync(join(dir, ".ai/ledger/failure", `${first.json().id}.md`), "utf8")
    // The symptom stays as first seen.
    expect(record).toContain("## Symptom\n\nLockTimeout at 2026-08-14T10:02:11Z after 5000ms")

    const distil = await workspace.run(["distil", "--format", "json"], { cwd: dir })
    expect(distil.code, distil.stderr).toBe(0)
    const items = distil.json().items
    expect(items).toHaveLength(1)
    expect(items[0]).toMatchObject({ id: first.json().id, occurrences: 2, dates: ["2026-08-14", "2026-08-26"], question: "This has now happened twice — 2026-08-14 and 2026-08-26. Should it become a rule, a skill, or neither?" })
    expect(items[0].draft.rule).toMatchObject({ id: "01", path: "rules/01-lock-timeout-db.md", scope: ["src/db/**"] })
    expect(items[0].draft.rule.text).toContain("## Purpose\n\na long-running transaction holds the table lock")
    expect(items[0].draft.rule.text).toContain("1. run migrations with a lock_timeout and retry")
    expect(items[0].draft.enforcement).toContain("src/db/**")
    expect(items[0].draft.test).toContain("would have failed on 2026-08-14 and 2026-08-26")
    // Deterministic: the same ledger drafts the same text.
    expect((await workspace.run(["distil", "--format", "json"], { cwd: dir })).json().items).toEqual(items)

    const decide = await workspace.run(["distil", "decide", first.json().id, "--as", "neither", "--note", "retries already cover it"], { cwd: dir })
    expect(decide.code, decide.stderr).toBe(0)
    const decision = readFileSync(decide.json().decision.path, "utf8")
    expect(decision).toContain(`## What\n\nTreat ${first.json().id} as neither`)
    expect(decision).toContain("## Alternatives\n\n- rule\n- skill")
    expect(decision).toContain("## Why\n\nretries already cover it")
    expect(decision).toContain("## Cost accepted\n\nnone stated")
    expect((await workspace.run(["distil", "--format", "json"], { cwd: dir })).json().items).toEqual([])
    // A third sighting later: still never asked again.
    expect((await workspace.run(["ledger", "add", "failure", ...failureFields(5, "LockTimeout again"), "--date", "2027-01-05"], { cwd: dir })).json().occurrences).toBe(3)
    expect((await workspace.run(["distil", "--format", "json"], { cwd: dir })).json().items).toEqual([])

    const verify = await workspace.run(["ledger", "verify"], { cwd: dir })
    expect(verify.code, verify.stdout).toBe(0)
    // The secret from .env and from a field is in no file under .ai/ nor in the workspace's folders (databases included).
    for (const where of [join(dir, ".ai"), workspace.configDir, workspace.dataDir, workspace.cacheDir]) {
      const bytes = allBytes(where)
      expect(bytes).not.toContain(SECRET)
      expect(bytes).not.toContain(TOKEN)
    }
    expect(record).toContain("[redacted:env]")
  }, SLOW)
})

describe("akm init project", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("is idempotent: a second run changes nothing and says so; it never overwrites an existing file", async () => {
    const dir = project(workspace, "My Repo!", { "context/router-contract.md": "# mine\n" })
    const first = await workspace.run(["init", "project", "--dir", dir])
    expect(first.code, first.stderr).toBe(0)
    expect(first.json()).toMatchObject({ bundle: "my-repo", created: [".ai/config.json", ".ai/ledger/.gitkeep"], kept: ["context/router-contract.md"] })
    expect(readFileSync(join(dir, "context/router-contract.md"), "utf8")).toBe("# mine\n")
    const config = JSON.parse(readFileSync(join(dir, ".ai/config.json"), "utf8"))
    expect(config).toMatchObject({ briefTier: "standard", interruptBudget: 5, sensitive: { allow: [] }, routers: { extraTargets: [] } })
    const again = await workspace.run(["init", "project", "--dir", dir, "--format", "text"])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain("already set up; nothing changed")
    const list = await workspace.run(["bundle", "list"])
    expect(list.json().bundles.filter((b: { name: string }) => b.name === "my-repo")).toHaveLength(1)
  }, SLOW)

  it("refuses a folder that is not a git work tree (exit 2, nothing written) unless --no-git", async () => {
    const dir = workspace.folder("plain", { "README.md": "# x\n" })
    const refused = await workspace.run(["init", "project", "--dir", dir])
    expect(refused.code).toBe(2)
    expect(refused.error().error.message).toContain("not a git work tree")
    expect(existsSync(join(dir, ".ai"))).toBe(false)
    const ok = await workspace.run(["init", "project", "--dir", dir, "--no-git", "--name", "plain-notes"])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.json().bundle).toBe("plain-notes")
    expect(existsSync(join(dir, ".ai/config.json"))).toBe(true)
  }, SLOW)

  it("a wrong type in .ai/config.json is an error naming the key; an unknown key is a warning", async () => {
    const dir = project(workspace, "typed", { ".ai/config.json": "{\"briefTier\": 3}\n" })
    const bad = await workspace.run(["init", "project", "--dir", dir])
    expect(bad.code).toBe(78)
    expect(bad.error().error.message).toContain("briefTier")
    writeFileSync(join(dir, ".ai/config.json"), "{\"briefTier\": \"lean\", \"colour\": \"red\", \"routers\": {\"extraTargets\": [\"zed\", {\"id\": \"x\", \"path\": \"X.md\"}]}}\n")
    const warned = await workspace.run(["init", "project", "--dir", dir])
    expect(warned.code, warned.stderr).toBe(0)
    expect(warned.json().warnings).toEqual(["unknown key 'colour' in .ai/config.json (ignored)"])
  }, SLOW)
})

describe("ledger commands", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  let dir = ""

  it("bad input is a usage error (exit 2) and writes nothing", async () => {
    dir = project(workspace, "app")
    expect((await workspace.run(["init", "project"], { cwd: dir })).code).toBe(0)
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["ledger", "add", "failure", "--field", "module"], "has no '='"],
      [["ledger", "add", "incident", "--title", "x"], "unknown ledger kind 'incident'"],
      [["ledger", "add", "failure", "--field", "module=src/a", "--field", "operation=x", "--field", "error_class=E"], "needs symptom, trigger, root_cause, fix"],
      [["ledger", "add", "failure", ...failureFields(1, "x"), "--date", "yesterday"], "'yesterday' is not a date"],
      [["ledger", "add", "decision", "--title", "Pick", "--field", "what=x"], "needs alternatives, why, cost_accepted"],
      [["distil", "decide", "nope", "--as", "rule"], "decide needs"]
    ]
    for (const [args, message] of cases) {
      const r = await workspace.run(args, { cwd: dir })
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.error().error.message).toContain(message)
    }
    expect(readdirSync(join(dir, ".ai/ledger"))).toEqual([".gitkeep"])
  }, SLOW)

  it("other kinds need their fields; list fields repeat --field; occurred counts the same sighting once", async () => {
    const added = await workspace.run(["ledger", "add", "decision", "--title", "Use SQLite", "--field", "what=Use SQLite for state", "--field", "alternatives=Postgres", "--field", "alternatives=files", "--field", "why=one file", "--field", "cost_accepted=no replicas"], { cwd: dir })
    expect(added.code, added.stderr).toBe(0)
    expect(readFileSync(added.json().path, "utf8")).toContain("## Alternatives\n\n- Postgres\n- files\n")
    const q = await workspace.run(["ledger", "add", "question", "--title", "Who owns billing?", "--field", "asked=who owns billing", "--field", "answer=team B", "--field", "answered_by=ana", "--field", "date=2026-08-01"], { cwd: dir })
    expect(q.code, q.stderr).toBe(0)
    const once = await workspace.run(["ledger", "occurred", "question/who-owns-billing", "--date", "2026-09-01", "--note", "asked again"], { cwd: dir })
    expect(once.json()).toMatchObject({ changed: true, occurrences: 2 })
    const twice = await workspace.run(["ledger", "occurred", "who-owns-billing", "--date", "2026-09-01", "--note", "asked again"], { cwd: dir })
    expect(twice.json()).toMatchObject({ changed: false, occurrences: 2 })
    const ci = await workspace.run(["ledger", "occurred", "who-owns-billing", "--date", "2026-09-01", "--note", "asked again", "--source", "ci"], { cwd: dir })
    expect(ci.json()).toMatchObject({ changed: true, occurrences: 3 })
    const list = await workspace.run(["ledger", "list", "--recurring"], { cwd: dir })
    expect(list.json().records.map((r: { id: string }) => r.id)).toEqual(["who-owns-billing"])
    const shown = await workspace.run(["ledger", "show", "decision/use-sqlite", "--format", "text"], { cwd: dir })
    expect(shown.stdout).toContain("## Why\n\none file")
    expect((await workspace.run(["ledger", "show", "nothing-like-it"], { cwd: dir })).code).toBe(1)
  }, SLOW)

  it("a recurrence with another module or error class is another record; split sends matching failures to their own (R-LED-3)", async () => {
    const base = await workspace.run(["ledger", "add", "failure", ...failureFields(17, "LockTimeout on the primary")], { cwd: dir })
    const otherModule = await workspace.run(["ledger", "add", "failure", ...failureFields(17, "x").map((a) => (a === "module=src/db" ? "module=src/billing" : a))], { cwd: dir })
    expect(otherModule.json().id).not.toBe(base.json().id)
    // A miss lists what search finds: "possibly the same as" (R-LED-2).
    expect(otherModule.json().candidates.map((c: { id: string }) => c.id)).toContain(base.json().id)
    const split = await workspace.run(["ledger", "split", base.json().id, "--discriminator", "read replica"], { cwd: dir })
    expect(split.code, split.stderr).toBe(0)
    const replica = await workspace.run(["ledger", "add", "failure", ...failureFields(40, "LockTimeout on the read replica")], { cwd: dir })
    expect(replica.json()).toMatchObject({ created: true })
    expect(replica.json().id).not.toBe(base.json().id)
    const primary = await workspace.run(["ledger", "add", "failure", ...failureFields(41, "LockTimeout on the primary again"), "--date", "2030-01-01"], { cwd: dir })
    expect(primary.json()).toMatchObject({ id: base.json().id, created: false, occurrences: 2 })
    const verify = await workspace.run(["ledger", "verify"], { cwd: dir })
    expect(verify.code, verify.stdout).toBe(0)
  }, SLOW)

  it("concurrent recordings of one failure all land on one record (real processes; a stale before-hash is read again)", async () => {
    const runs = await Promise.all([1, 2, 3].map((n) => workspace.run(["ledger", "add", "failure", ...failureFields(100 + n, `race ${n}`).map((a) => (a === "module=src/db" ? "module=src/race" : a)), "--date", `2026-10-0${n}`], { cwd: dir })))
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    const ids = new Set(runs.map((r) => r.json().id))
    expect(ids.size).toBe(1)
    const shown = await workspace.run(["ledger", "show", [...ids][0]!], { cwd: dir })
    expect(shown.json().record.occurrences.map((o: { date: string }) => o.date).sort()).toEqual(["2026-10-01", "2026-10-02", "2026-10-03"])
  }, SLOW)

  it("with two project bundles and the caller outside both: exit 2 listing them; inside one: that one", async () => {
    const other = project(workspace, "other")
    expect((await workspace.run(["init", "project"], { cwd: other })).code).toBe(0)
    const outside = await workspace.run(["ledger", "list"], { cwd: workspace.root })
    expect(outside.code).toBe(2)
    expect(outside.error().error.message).toMatch(/app.*other|other.*app/)
    expect((await workspace.run(["ledger", "list"], { cwd: join(other) })).json().bundle).toBe("other")
    expect((await workspace.run(["ledger", "list", "--bundle", "app"], { cwd: workspace.root })).json().bundle).toBe("app")
  }, SLOW)
})

describe("checkers fire on a broken ledger and stay silent on a healthy one (R-CHK-1)", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  const healthy = (id: string, module = "src/a") =>
    `---\nkind: failure\nid: ${id}\ntitle: T\nfingerprint: ${id}\noccurrences:\n  - date: 2026-08-01\n    source: self-report\n---\n\n## Symptom\n\ns\n\n## Trigger\n\nt\n\n## Root cause\n\nc\n\n## Fix\n\nf\n\n## Module\n\n${module}\n\n## Operation\n\nop\n\n## Error class\n\nE\n`

  it("ledger verify and akm lint name each broken record's file and line; index and search still work", async () => {
    const dir = project(workspace, "broken")
    expect((await workspace.run(["init", "project"], { cwd: dir })).code).toBe(0)
    const healthyId = "e-aaaaaaaaaaaa"
    const ok = await workspace.run(["ledger", "add", "failure", ...failureFields(3, "first")], { cwd: dir })
    expect(ok.code, ok.stderr).toBe(0)
    const silent = await workspace.run(["ledger", "verify"], { cwd: dir })
    expect(silent.code, silent.stdout).toBe(0)
    expect(silent.json().findings).toEqual([])

    const failures = join(dir, ".ai/ledger/failure")
    mkdirSync(join(dir, ".ai/ledger/decision"), { recursive: true })
    writeFileSync(join(failures, "bad-yaml.md"), "---\nkind: failure\nid: bad-yaml\ntitle: [unclosed\n---\n\n## Symptom\n\nx\n")
    writeFileSync(join(failures, "no-fix.md"), healthy("no-fix").replace("## Fix\n\nf\n\n", ""))
    writeFileSync(join(failures, `${healthyId}.md`), healthy(healthyId))
    writeFileSync(join(failures, "twin.md"), healthy(healthyId).replace(`id: ${healthyId}`, "id: twin"))
    writeFileSync(join(dir, ".ai/ledger/decision", `${healthyId}.md`), `---\nkind: decision\nid: ${healthyId}\ntitle: D\n---\n\n## What\n\nw\n\n## Alternatives\n\n- a\n\n## Why\n\ny\n\n## Cost accepted\n\nc\n`)
    const fired = await workspace.run(["ledger", "verify"], { cwd: dir })
    expect(fired.code).toBe(1)
    const findings = fired.json().findings as ReadonlyArray<{ code: string; path: string; line: number }>
    expect(findings).toEqual(expect.arrayContaining([
      expect.objectContaining({ code: "invalid-yaml", path: ".ai/ledger/failure/bad-yaml.md", line: 4 }),
      expect.objectContaining({ code: "ledger-missing-field", path: ".ai/ledger/failure/no-fix.md" }),
      expect.objectContaining({ code: "duplicate-fingerprint", path: ".ai/ledger/failure/twin.md", line: 5 }),
      expect.objectContaining({ code: "duplicate-ledger-id", line: 3 })
    ]))
    const text = await workspace.run(["ledger", "verify", "--format", "text"], { cwd: dir })
    expect(text.stdout).toContain(".ai/ledger/failure/bad-yaml.md:4")

    const lint = await workspace.run(["lint", "--bundle", "broken"], { cwd: dir })
    expect(lint.code).toBe(1)
    const rows = lint.stdout
    expect(rows).toContain("bad-yaml.md")
    expect(rows).toContain("no-fix.md")
    expect(rows).toContain("duplicate-fingerprint")

    expect((await workspace.run(["index"], { cwd: dir })).code).toBe(0)
    const search = await workspace.run(["search", "LockTimeout", "--type", "failure"], { cwd: dir })
    expect(search.code, search.stderr).toBe(0)
    // A malformed record elsewhere blocks no recording.
    expect((await workspace.run(["ledger", "add", "failure", ...failureFields(8, "second"), "--date", "2026-08-02"], { cwd: dir })).json().occurrences).toBe(2)
  }, SLOW)

  it("distil detect fires at two occurrences, is silent at one, and after neither", async () => {
    const dir = project(workspace, "distil")
    expect((await workspace.run(["init", "project"], { cwd: dir })).code).toBe(0)
    const one = await workspace.run(["ledger", "add", "failure", ...failureFields(1, "once"), "--date", "2026-08-01"], { cwd: dir })
    expect((await workspace.run(["distil"], { cwd: dir })).json().items).toEqual([])
    await workspace.run(["ledger", "occurred", one.json().id, "--date", "2026-08-02", "--source", "ci"], { cwd: dir })
    expect((await workspace.run(["distil"], { cwd: dir })).json().items.map((i: { id: string }) => i.id)).toEqual([one.json().id])

    const rule = await workspace.run(["distil", "decide", one.json().id, "--as", "rule", "--note", "cheap to enforce", "--cost", "slower CI"], { cwd: dir })
    expect(rule.code, rule.stderr).toBe(0)
    expect(rule.json().proposal).toMatchObject({ status: "pending" })
    expect(rule.json().proposal.path).toMatch(/rules\/01-lock-timeout-db\.md$/)
    expect(existsSync(join(dir, "rules/01-lock-timeout-db.md"))).toBe(false)
    expect(readFileSync(rule.json().decision.path, "utf8")).toContain("## Cost accepted\n\nslower CI")
    expect((await workspace.run(["distil"], { cwd: dir })).json().items).toEqual([])
    const accepted = await workspace.run(["proposal", "accept", rule.json().proposal.id], { cwd: dir })
    expect(accepted.code, accepted.stderr).toBe(0)
    const ruleText = readFileSync(join(dir, "rules/01-lock-timeout-db.md"), "utf8")
    expect(ruleText).toMatch(/^---\nid: "01"\nintroduced_by: failure\/lock-timeout-[0-9a-f]{12}\nscope:\n {2}- src\/db\/\*\*\n---\n/)
    // The next draft takes the next number.
    const another = await workspace.run(["ledger", "add", "failure", ...failureFields(1, "x").map((a) => (a === "error_class=LockTimeout" ? "error_class=Deadlock" : a)), "--date", "2026-08-03"], { cwd: dir })
    await workspace.run(["ledger", "occurred", another.json().id, "--date", "2026-08-04"], { cwd: dir })
    const next = (await workspace.run(["distil"], { cwd: dir })).json().items
    expect(next.map((i: { draft: { rule: { id: string } } }) => i.draft.rule.id)).toEqual(["02"])
    const skill = await workspace.run(["distil", "decide", another.json().id, "--as", "skill", "--note", "a procedure"], { cwd: dir })
    expect(skill.code, skill.stderr).toBe(0)
    expect(skill.json().proposal.path).toMatch(/skills\/fix-deadlock-db\/SKILL\.md$/)
  }, SLOW)
})
