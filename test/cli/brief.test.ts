import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, type Workspace } from "../support/cli.js"
import { makeGitRepo } from "../support/gitRepo.js"

// Issue 22 item 1 end to end against dist/: brief write|check|explain (R-BRF-1..4), bad input (item 6), checker pairs (R-CHK-1).

const SLOW = 300_000
const TIERS = { lean: 4_000, standard: 12_000, deep: 25_000 } as const

/** examples/project as files, to copy into a temporary git repository. */
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

const failureFields = (line: number) => [
  "--field", "module=src/db",
  "--field", `operation=migrate src/db/migrations/0042.sql:${line}`,
  "--field", "error_class=LockTimeout",
  "--field", "symptom=migrate hangs, then LockTimeout on orders",
  "--field", "trigger=npm run migrate while the API serves traffic",
  "--field", "root_cause=a long-running transaction holds the table lock",
  "--field", "fix=run migrations with lock_timeout = 5s and retry"
]

const tokensOf = (dir: string) => countTokens(readFileSync(join(dir, ".ai/BRIEF.md"), "utf8"), { disallowedSpecial: new Set() })

interface Entry { section: string; title: string; path: string; ref: string; score: number; tokens: number; tags: Array<string>; in_brief: boolean }
const indexOf = (dir: string): { items: Array<Entry> } => JSON.parse(readFileSync(join(dir, ".ai/index.json"), "utf8"))

const setUp = async (workspace: Workspace, name: string, extra: Readonly<Record<string, string>> = {}) => {
  const repo = makeGitRepo(join(workspace.root, name), workspace.home, { ...exampleFiles(), ...extra })
  const init = await workspace.run(["init", "project"], { cwd: repo.dir })
  expect(init.code, init.stderr).toBe(0)
  return repo
}

describe("brief on the example project: the issue's done-when", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("each tier stays within its budget (counted here with o200k), every index entry resolves, check exits 0 then 1 after a briefed file changes", async () => {
    const repo = await setUp(workspace, "shop", {
      "docs/business/refunds.md": "# Refunds\n\nRefunds over €250 need a second approver. A customer gets at most 3 refunds per 30 days.\n"
    })
    const dir = repo.dir
    for (const line of [17, 93]) {
      const add = await workspace.run(["ledger", "add", "failure", "--title", "Migration lock timeout", ...failureFields(line), "--date", `2026-08-${line === 17 ? "14" : "26"}`], { cwd: dir })
      expect(add.code, add.stderr).toBe(0)
    }
    const used: Array<string> = []
    for (const tier of ["lean", "standard", "deep"] as const) {
      const write = await workspace.run(["brief", "write", "--tier", tier], { cwd: dir })
      expect(write.code, write.stderr).toBe(0)
      const tokens = tokensOf(dir)
      expect(tokens).toBeLessThanOrEqual(TIERS[tier])
      expect(write.json().tokens).toBe(tokens)
      used.push(`${tier} ${tokens}/${TIERS[tier]}`)
      for (const e of indexOf(dir).items) expect(existsSync(join(dir, e.path)), e.path).toBe(true)
    }
    console.log(`brief token use on examples/project: ${used.join(", ")}`)
    const brief = readFileSync(join(dir, ".ai/BRIEF.md"), "utf8")
    expect(brief).toContain("## Constraints that must not break")
    expect(brief).toContain("### Run each migration inside one transaction")
    expect(brief).toContain("### Migration lock timeout (seen 2 times)")
    expect(brief).toContain("Refunds over €250 need a second approver")
    const paths = indexOf(dir).items.map((e) => `${e.path}#${e.ref}`)
    expect(paths).toEqual([...paths].sort())
    expect(indexOf(dir).items.find((e) => e.path === "rules/01-migrations-in-one-transaction.md")).toMatchObject({ section: "constraints", ref: "01", in_brief: true })

    // check remembers the tier it was written with (deep, last).
    const clean = await workspace.run(["brief", "check"], { cwd: dir })
    expect(clean.code, clean.stdout).toBe(0)
    const second = await workspace.run(["brief", "write", "--tier", "deep"], { cwd: dir })
    expect(second.json().files.map((f: { action: string }) => f.action)).toEqual(["unchanged", "unchanged"])

    const rule = join(dir, "rules/01-migrations-in-one-transaction.md")
    writeFileSync(rule, readFileSync(rule, "utf8").replace("wraps every file", "wraps each file"))
    const stale = await workspace.run(["brief", "check", "--format", "text"], { cwd: dir })
    expect(stale.code).toBe(1)
    expect(stale.stdout).toContain(".ai/BRIEF.md  stale  differs from a fresh render in \"Constraints that must not break\"")
    expect(stale.stdout).toContain("rules/01-migrations-in-one-transaction.md  stale  briefed item changed since the brief was written (01)")

    const explain = await workspace.run(["brief", "explain", "--tier", "lean", "--format", "text"], { cwd: dir })
    expect(explain.code, explain.stderr).toBe(0)
    expect(explain.stdout).toMatch(/in +Constraints that must not break +value 16 +\d+ tok +rules\/01-migrations-in-one-transaction\.md +in as content/)
  }, SLOW)
})

describe("brief on a corpus larger than the lean budget", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const para = (i: number) => `Plan ${i} costs €${10 + i} a month and allows ${100 * i} orders per day; overage is billed at €0.0${i % 9 + 1} per order. `.repeat(12)
  const corpus: Record<string, string> = {}
  for (let i = 0; i < 40; i++) corpus[`docs/business/plan-${String(i).padStart(2, "0")}.md`] = `# Plan ${i}\n\n${para(i)}\n`
  for (let i = 0; i < 120; i++) corpus[`docs/notes/note-${String(i).padStart(3, "0")}.md`] = `# Note ${i} about the shop's ${i % 2 === 0 ? "orders" : "carts"}\n\nSome prose.\n`

  it("demotes, never drops; check is silent when an item out of the brief changes and fires when one is added, removed or its index entry points nowhere", async () => {
    const repo = await setUp(workspace, "big", corpus)
    const dir = repo.dir
    const write = await workspace.run(["brief", "write", "--tier", "lean"], { cwd: dir })
    expect(write.code, write.stderr).toBe(0)
    expect(tokensOf(dir)).toBeLessThanOrEqual(4_000)
    const { items } = indexOf(dir)
    expect(items.length).toBe(write.json().items)
    const out = items.filter((e) => !e.in_brief)
    expect(items.filter((e) => e.in_brief).length).toBe(write.json().content)
    expect(write.json().pointers).toBeGreaterThan(0)
    expect(write.json().more).toBeGreaterThan(0)
    const brief = readFileSync(join(dir, ".ai/BRIEF.md"), "utf8")
    expect(brief).toContain(`…and ${write.json().more} more in .ai/index.json`)
    // Nothing lost: every entry out of the brief's content is a pointer line or counted in the "…and N more" line.
    expect(out.filter((e) => brief.includes(`\`${e.path}\``)).length).toBe(write.json().pointers)
    console.log(`lean on 160 extra docs: ${tokensOf(dir)} tokens, ${write.json().content} as content, ${write.json().pointers} pointers, ${write.json().more} more`)

    // Silent: an item out of the brief grew (its tokens moved).
    const quiet = out.find((e) => e.path.startsWith("docs/notes/") && !brief.includes(`\`${e.path}\``))!
    writeFileSync(join(dir, quiet.path), `${readFileSync(join(dir, quiet.path), "utf8")}\nMore prose about it, added later.\n`)
    const silent = await workspace.run(["brief", "check"], { cwd: dir })
    expect(silent.code, silent.stdout).toBe(0)

    // Fires: an artifact added.
    writeFileSync(join(dir, "docs/notes/zz-new.md"), "# A new note\n")
    const added = await workspace.run(["brief", "check", "--format", "text"], { cwd: dir })
    expect(added.code).toBe(1)
    expect(added.stdout).toContain("docs/notes/zz-new.md  stale  .ai/index.json: added since the brief was written")
    rmSync(join(dir, "docs/notes/zz-new.md"))

    // Fires: an artifact removed (its index.json path is missing).
    rmSync(join(dir, quiet.path))
    const removed = await workspace.run(["brief", "check", "--format", "text"], { cwd: dir })
    expect(removed.code).toBe(1)
    expect(removed.stdout).toContain(`${quiet.path}  stale  .ai/index.json points at a file that does not exist`)
    expect(removed.stdout).toContain(`${quiet.path}  stale  .ai/index.json: removed since the brief was written`)
  }, SLOW)

  it("a hand-edited index.json fires; a budget below 1,000 tokens is refused naming it", async () => {
    const repo = await setUp(workspace, "edits")
    const dir = repo.dir
    expect((await workspace.run(["brief", "write"], { cwd: dir })).code).toBe(0)
    const index = JSON.parse(readFileSync(join(dir, ".ai/index.json"), "utf8"))
    index.items[0].title = "Edited by hand"
    writeFileSync(join(dir, ".ai/index.json"), JSON.stringify(index, null, 2) + "\n")
    const edited = await workspace.run(["brief", "check", "--format", "text"], { cwd: dir })
    expect(edited.code).toBe(1)
    expect(edited.stdout).toContain("changed (title)")
    writeFileSync(join(dir, ".ai/index.json"), "{ not json")
    const broken = await workspace.run(["brief", "check", "--format", "text"], { cwd: dir })
    expect(broken.code).toBe(1)
    expect(broken.stdout).toContain(".ai/index.json  stale  malformed (not valid JSON")

    const small = await workspace.run(["brief", "write", "--budget", "500"], { cwd: dir })
    expect(small.code).toBe(2)
    expect(small.error().error.message).toContain("a brief budget of 500 tokens is too small: the smallest is 1000")
    const config = join(dir, ".ai/config.json")
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), briefBudget: 999 }))
    const fromConfig = await workspace.run(["brief", "write"], { cwd: dir })
    expect(fromConfig.code).toBe(2)
    expect(fromConfig.error().error.message).toContain("a brief budget of 999 tokens")
    expect(readFileSync(join(dir, ".ai/index.json"), "utf8")).toBe("{ not json")
  }, SLOW)
})
