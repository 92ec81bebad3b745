import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot } from "../support/cli.js"
import { makeGitRepo } from "../support/gitRepo.js"

// Issue 22 item 2 (R-SCP-2) against dist/: `akm scope plan` from the working tree against HEAD.

const SLOW = 240_000

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

type Plan = { stations: Array<{ station: string; work: boolean; reasons: Array<string> }> }
const working = (plan: Plan) => plan.stations.filter((s) => s.work).map((s) => s.station)

describe("scope plan", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("a typo in an unbriefed doc plans nothing; a business rule plans SURFACE only; a rule plans HARDEN and PROJECT; ignore is honoured", async () => {
    const repo = makeGitRepo(join(workspace.root, "shop"), workspace.home, {
      ...exampleFiles(),
      "docs/business/refunds.md": "# Refunds\n\nRefunds over €250 need a second approver.\n",
      ...Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`docs/notes/note-${String(i).padStart(2, "0")}.md`, `# Note ${i}\n\n${"Prose about the shop. ".repeat(40)}\n`]))
    })
    const dir = repo.dir
    expect((await workspace.run(["init", "project"], { cwd: dir })).code).toBe(0)
    expect((await workspace.run(["brief", "write", "--tier", "lean"], { cwd: dir })).code).toBe(0)
    repo.commit({}, "akm init project and the brief")

    const clean = await workspace.run(["scope", "plan"], { cwd: dir })
    expect(clean.code, clean.stderr).toBe(0)
    expect(working(clean.json())).toEqual([])

    const index = JSON.parse(readFileSync(join(dir, ".ai/index.json"), "utf8")) as { items: Array<{ path: string; in_brief: boolean }> }
    const unbriefed = index.items.find((e) => e.path.startsWith("docs/notes/") && !e.in_brief)!.path
    writeFileSync(join(dir, unbriefed), readFileSync(join(dir, unbriefed), "utf8").replace("Prose", "Prise"))
    const typo = await workspace.run(["scope", "plan"], { cwd: dir })
    expect(working(typo.json())).toEqual([])
    expect((await workspace.run(["brief", "check"], { cwd: dir })).code).toBe(0)
    repo.git("checkout", "--", unbriefed)

    writeFileSync(join(dir, "docs/business/refunds.md"), "# Refunds\n\nRefunds over €300 need a second approver.\n")
    const business = await workspace.run(["scope", "plan", "--format", "text"], { cwd: dir })
    expect(working((await workspace.run(["scope", "plan"], { cwd: dir })).json())).toEqual(["SURFACE"])
    expect(business.stdout).toMatch(/SURFACE +work +a briefed item changed: docs\/business\/refunds\.md/)
    repo.git("checkout", "--", "docs/business/refunds.md")

    const rule = join(dir, "rules/02-concurrent-index-builds.md")
    writeFileSync(rule, `${readFileSync(rule, "utf8")}\n2. Name each index after its table.\n`)
    expect(working((await workspace.run(["scope", "plan"], { cwd: dir })).json())).toEqual(["HARDEN", "PROJECT", "SURFACE"])
    repo.git("checkout", "--", "rules/02-concurrent-index-builds.md")

    // Untracked files: a new doc plans SURFACE (index.json lists every artifact) unless scope.ignore covers it.
    mkdirSync(join(dir, "docs/scratch"), { recursive: true })
    writeFileSync(join(dir, "docs/scratch/idea.md"), "# Idea\n")
    expect(working((await workspace.run(["scope", "plan"], { cwd: dir })).json())).toEqual(["SURFACE"])
    const config = join(dir, ".ai/config.json")
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), scope: { ignore: ["docs/scratch/**", ".ai/config.json"] } }, null, 2))
    expect(working((await workspace.run(["scope", "plan"], { cwd: dir })).json())).toEqual([])
  }, SLOW)

  it("a 50,000-file untracked folder under scope.ignore is never walked: the plan stays fast", async () => {
    const repo = makeGitRepo(join(workspace.root, "huge"), workspace.home, { "README.md": "# huge\n", ".ai/config.json": JSON.stringify({ scope: { ignore: ["scratch/**"] } }) })
    expect((await workspace.run(["init", "project"], { cwd: repo.dir })).code).toBe(0)
    repo.commit({}, "init project")
    for (let d = 0; d < 100; d++) {
      mkdirSync(join(repo.dir, "scratch", `d${d}`), { recursive: true })
      for (let i = 0; i < 500; i++) writeFileSync(join(repo.dir, "scratch", `d${d}`, `f${i}.md`), "x")
    }
    const started = Date.now()
    const plan = await workspace.run(["scope", "plan"], { cwd: repo.dir })
    const ms = Date.now() - started
    console.log(`scope plan with 50,000 ignored untracked files: ${ms} ms`)
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.json().changed).toBe(0)
    expect(ms).toBeLessThan(15_000)
  }, SLOW)

  it("a repository with no commits plans from every file; a corrupt .ai/config.json is exit 78 naming the file", async () => {
    const repo = makeGitRepo(join(workspace.root, "fresh"), workspace.home)
    writeFileSync(join(repo.dir, "README.md"), "# fresh\n")
    expect((await workspace.run(["init", "project"], { cwd: repo.dir })).code).toBe(0)
    const plan = await workspace.run(["scope", "plan"], { cwd: repo.dir })
    expect(plan.code, plan.stderr).toBe(0)
    expect(working(plan.json())).toContain("PROJECT")
    expect(working(plan.json())).toContain("SURFACE")
    writeFileSync(join(repo.dir, ".ai/config.json"), "{ \"scope\": { \"ignore\": 5 } }")
    const bad = await workspace.run(["scope", "plan"], { cwd: repo.dir })
    expect(bad.code).toBe(78)
    expect(bad.error().error.message).toContain(".ai/config.json")
    expect(bad.error().error.message).toContain("scope.ignore")
  }, SLOW)
})
