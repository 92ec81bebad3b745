import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace, type Workspace } from "../support/cli.js"
import { makeGitRepo, type GitRepo } from "../support/gitRepo.js"

// Issue 21 end to end against dist/: rules (R-HAR-1..4), routers (R-PRJ-1..3), maps (R-PRJ-4), checkers (R-CHK-1).

const SLOW = 240_000

const ROUTERS = [".cursor/rules/akm.mdc", ".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "CODEX.md", "DEEPSEEK.md", "GEMINI.md", "GLM.md", "KIMI.md", "MISTRAL.md", "QWEN.md"]

const SHOP: Readonly<Record<string, string>> = {
  "README.md": "# shop\n",
  "package.json": JSON.stringify({ name: "shop", dependencies: { pg: "8.11.0", express: "4.19.2" }, devDependencies: { vitest: "3.2.7" } }, null, 2),
  "src/api/README.md": "# API\n\nThe HTTP API of the shop.\n",
  "src/api/index.js": "export {}\n",
  "src/db/README.md": "Postgres access and migrations.\n",
  "src/db/migrations/0042.sql": "ALTER TABLE orders ADD COLUMN note text;\n",
  "docs/adr/0001-postgres.md": "# Use Postgres\n\nThrough the pg driver.\n"
}

const setUp = async (workspace: Workspace, name: string): Promise<GitRepo> => {
  const repo = makeGitRepo(join(workspace.root, name), workspace.home, SHOP)
  const init = await workspace.run(["init", "project"], { cwd: repo.dir })
  expect(init.code, init.stderr).toBe(0)
  return repo
}

describe("routers: the issue's done-when scenario", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("write creates all eleven, check is clean, a hand edit is named, outside text survives, a second write changes nothing", async () => {
    const repo = await setUp(workspace, "shop")
    const dir = repo.dir
    const write = await workspace.run(["routers", "write"], { cwd: dir })
    expect(write.code, write.stderr).toBe(0)
    expect(write.json().files.map((f: { path: string; action: string }) => `${f.action} ${f.path}`).sort()).toEqual(ROUTERS.map((p) => `created ${p}`))
    for (const path of ROUTERS) expect(existsSync(join(dir, path)), path).toBe(true)
    // Each file's byte size, reported for the issue.
    console.log(`router sizes: ${write.json().files.map((f: { path: string; bytes: number }) => `${f.path} ${f.bytes}`).join(", ")}`)
    const cursor = readFileSync(join(dir, ".cursor/rules/akm.mdc"), "utf8")
    expect(cursor).toMatch(/^---\ndescription: [^\n]+\nalwaysApply: true\n---\n/)
    expect(readFileSync(join(dir, ".github/copilot-instructions.md"), "utf8").startsWith("<!-- akm:generated:begin -->")).toBe(true)

    const clean = await workspace.run(["routers", "check"], { cwd: dir })
    expect(clean.code, clean.stdout).toBe(0)

    // A hand edit inside the region: exit 1, naming the file and the section.
    const claude = join(dir, "CLAUDE.md")
    writeFileSync(claude, readFileSync(claude, "utf8").replace("3. Never write secrets", "3. Happily write secrets"))
    const drift = await workspace.run(["routers", "check", "--format", "text"], { cwd: dir })
    expect(drift.code).toBe(1)
    expect(drift.stdout).toContain("CLAUDE.md  drift  differs from the contract in section \"Mandatory rules\"")
    expect(drift.stdout).not.toContain("AGENTS.md")

    // Text outside the markers survives a rewrite byte for byte.
    const agents = join(dir, "AGENTS.md")
    const mine = "Team note above.\r\n\n"
    const tail = "\n## Our own notes\n\n  keep\tthis  exactly \n"
    writeFileSync(agents, `${mine}${readFileSync(agents, "utf8")}${tail}`)
    const rewrite = await workspace.run(["routers", "write"], { cwd: dir })
    expect(rewrite.code, rewrite.stderr).toBe(0)
    expect(rewrite.json().files.filter((f: { action: string }) => f.action !== "unchanged").map((f: { path: string }) => f.path)).toEqual(["CLAUDE.md"])
    const agentsNow = readFileSync(agents, "utf8")
    expect(agentsNow.startsWith(mine)).toBe(true)
    expect(agentsNow.endsWith(tail)).toBe(true)
    expect(readFileSync(claude, "utf8")).toContain("3. Never write secrets")

    const second = await workspace.run(["routers", "write"], { cwd: dir })
    expect(second.code).toBe(0)
    expect(second.json().files.every((f: { action: string }) => f.action === "unchanged")).toBe(true)
    expect(second.json().proposal).toBeUndefined()
    expect((await workspace.run(["routers", "check"], { cwd: dir })).code).toBe(0)
  }, SLOW)

  it("a file without markers is skipped (exit 1) until --adopt, whose proposal waits for review and keeps the text", async () => {
    const repo = await setUp(workspace, "adopt")
    const dir = repo.dir
    writeFileSync(join(dir, "CLAUDE.md"), "# Our CLAUDE.md\n\nHand-written.\n")
    const skipped = await workspace.run(["routers", "write"], { cwd: dir })
    expect(skipped.code).toBe(1)
    expect(skipped.json().files.find((f: { path: string }) => f.path === "CLAUDE.md").action).toBe("needs-adopt")
    expect(readFileSync(join(dir, "CLAUDE.md"), "utf8")).toBe("# Our CLAUDE.md\n\nHand-written.\n")
    const check = await workspace.run(["routers", "check", "--format", "text"], { cwd: dir })
    expect(check.code).toBe(1)
    expect(check.stdout).toContain("CLAUDE.md  drift  exists without akm:generated markers")
    const adopt = await workspace.run(["routers", "write", "--adopt", "--target", "claude"], { cwd: dir })
    expect(adopt.code, adopt.stderr).toBe(0)
    expect(adopt.json().adoption).toMatchObject({ status: "pending" })
    expect(readFileSync(join(dir, "CLAUDE.md"), "utf8")).toBe("# Our CLAUDE.md\n\nHand-written.\n")
    const accepted = await workspace.run(["proposal", "accept", adopt.json().adoption.id], { cwd: dir })
    expect(accepted.code, accepted.stderr).toBe(0)
    const taken = readFileSync(join(dir, "CLAUDE.md"), "utf8")
    expect(taken.startsWith("# Our CLAUDE.md\n\nHand-written.\n\n<!-- akm:generated:begin -->")).toBe(true)
    expect((await workspace.run(["routers", "check"], { cwd: dir })).code).toBe(0)
  }, SLOW)

  it("bad input: no Identity, broken markers, a symlink out of the repo, a 1 MB contract — each named, nothing written", async () => {
    const repo = await setUp(workspace, "bad")
    const dir = repo.dir
    const contractPath = join(dir, "context/router-contract.md")
    const contract = readFileSync(contractPath, "utf8")

    writeFileSync(contractPath, contract.replace("## Identity", "## Who"))
    const noIdentity = await workspace.run(["routers", "write"], { cwd: dir })
    expect(noIdentity.code).toBe(2)
    expect(noIdentity.error().error.message).toContain("context/router-contract.md:1: the contract has no `## Identity` section")
    writeFileSync(contractPath, contract)

    writeFileSync(join(dir, "GLM.md"), "x\n<!-- akm:generated:end -->\n<!-- akm:generated:begin -->\n")
    const broken = await workspace.run(["routers", "write"], { cwd: dir })
    expect(broken.code).toBe(1)
    expect(broken.error().error.message).toContain("GLM.md:2: the akm:generated:end marker comes before the begin marker")
    expect(existsSync(join(dir, "AGENTS.md"))).toBe(false)
    writeFileSync(join(dir, "GLM.md"), "")
    writeFileSync(join(dir, "GLM.md"), "<!-- akm:generated:begin -->\n<!-- akm:generated:end -->\n")

    const outside = workspace.folder("outside")
    symlinkSync(join(outside, "KIMI.md"), join(dir, "KIMI.md"))
    const link = await workspace.run(["routers", "write"], { cwd: dir })
    expect(link.code).toBe(1)
    expect(link.error().error.message).toContain("KIMI.md is a symlink")
    expect(readdirSync(outside)).toEqual([])
    expect(existsSync(join(dir, "AGENTS.md"))).toBe(false)
    const linkedDir = workspace.folder("outside-dir")
    symlinkSync(linkedDir, join(dir, ".github"))
    const viaDir = await workspace.run(["routers", "write", "--target", "copilot"], { cwd: dir })
    expect(viaDir.code).toBe(1)
    expect(viaDir.error().error.message).toContain("leads out of the repository")
    expect(readdirSync(linkedDir)).toEqual([])

    writeFileSync(contractPath, `${contract}\n## Glossary\n\n${"lorem ipsum dolor sit amet ".repeat(40_000)}\n`)
    const big = await workspace.run(["routers", "write", "--target", "agents", "--target", "claude"], { cwd: dir })
    expect(big.code).toBe(1)
    expect(big.error().error.message).toMatch(/AGENTS\.md would be \d+ bytes, over Codex \/ AGENTS\.md standard's 32768-byte budget; the largest sections: Glossary/)
    expect(existsSync(join(dir, "AGENTS.md"))).toBe(false)
    expect(existsSync(join(dir, "CLAUDE.md"))).toBe(false)
  }, SLOW)

  it("extra targets from .ai/config.json are written and checked without code changes", async () => {
    const repo = await setUp(workspace, "extra")
    const dir = repo.dir
    const config = JSON.parse(readFileSync(join(dir, ".ai/config.json"), "utf8"))
    config.routers.extraTargets = ["windsurf", { id: "team", path: "docs/TEAM-AGENTS.md" }]
    writeFileSync(join(dir, ".ai/config.json"), JSON.stringify(config, null, 2))
    const write = await workspace.run(["routers", "write"], { cwd: dir })
    expect(write.code, write.stderr).toBe(0)
    expect(readFileSync(join(dir, ".windsurf/rules/akm.md"), "utf8")).toMatch(/^---\ntrigger: always_on\n---\n/)
    expect(existsSync(join(dir, "docs/TEAM-AGENTS.md"))).toBe(true)
    writeFileSync(join(dir, "docs/TEAM-AGENTS.md"), readFileSync(join(dir, "docs/TEAM-AGENTS.md"), "utf8").replace("## Identity", "## Identity!"))
    const check = await workspace.run(["routers", "check", "--format", "text"], { cwd: dir })
    expect(check.code).toBe(1)
    expect(check.stdout).toContain("docs/TEAM-AGENTS.md  drift")
  }, SLOW)
})

const RULE_A = `---
id: "01"
scope: ["src/db/**"]
mandates:
  - { must: true, subject: "run migrations inside one transaction" }
---

# Migrations run in one transaction

## Purpose

A half-applied migration leaves the schema broken.

## Mandatory rules

1. Run every migration inside one transaction.
`

const RULE_B = `---
id: "02"
scope: ["src/db/migrations/*.sql"]
mandates:
  - { must: false, subject: "Run migrations inside one transaction." }
---

# Index builds run outside transactions
`

describe("rules: conflicts, caused and evolve", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("two rules overlapping on a real file with opposite mandates make `rules conflicts` exit 1; silent once one is narrowed", async () => {
    const repo = await setUp(workspace, "conflicts")
    repo.commit({ "rules/01-one-transaction.md": RULE_A, "rules/02-concurrent-index.md": RULE_B }, "rules")
    const found = await workspace.run(["rules", "conflicts", "--format", "text"], { cwd: repo.dir })
    expect(found.code).toBe(1)
    expect(found.stdout).toContain("conflict rule 01 ↔ rule 02")
    expect(found.stdout).toContain("both apply to 1 file: src/db/migrations/0042.sql")
    expect(found.stdout).toContain("# Resolve the conflict between rule 01 and rule 02")
    // Nothing is resolved: the rules are as they were.
    expect(readFileSync(join(repo.dir, "rules/01-one-transaction.md"), "utf8")).toBe(RULE_A)
    repo.commit({ "rules/02-concurrent-index.md": RULE_B.replace("src/db/migrations/*.sql", "src/search/**") }, "narrow")
    const silent = await workspace.run(["rules", "conflicts", "--format", "text"], { cwd: repo.dir })
    expect(silent.code, silent.stdout).toBe(0)
    expect(silent.stdout).toContain("02-concurrent-index.md:3  scope-matches-nothing  scope 'src/search/**' matches no tracked file")
  }, SLOW)

  it("caused then evolve: A' with both links, A marked and its body unchanged, the chain visible in show", async () => {
    const repo = await setUp(workspace, "evolve")
    repo.commit({ "rules/01-one-transaction.md": RULE_A }, "rule")
    const failure = await workspace.run([
      "ledger", "add", "failure", "--title", "Index build blocked by the migration transaction",
      "--field", "module=src/db/migrations", "--field", "operation=CREATE INDEX CONCURRENTLY", "--field", "error_class=ActiveSqlTransaction",
      "--field", "symptom=CREATE INDEX CONCURRENTLY cannot run inside a transaction block", "--field", "trigger=npm run migrate",
      "--field", "root_cause=rule 01 wraps every migration in a transaction", "--field", "fix=run CONCURRENTLY statements in a migration of their own, outside the transaction",
      "--date", "2026-09-02"
    ], { cwd: repo.dir })
    expect(failure.code, failure.stderr).toBe(0)
    const id = failure.json().id as string
    const caused = await workspace.run(["rules", "caused", "01", id], { cwd: repo.dir })
    expect(caused.code, caused.stderr).toBe(0)
    const afterCaused = readFileSync(join(repo.dir, "rules/01-one-transaction.md"), "utf8")
    const body = RULE_A.slice(RULE_A.indexOf("\n---\n") + 5)
    expect(afterCaused.endsWith(`\n---\n${body}`)).toBe(true)
    expect(afterCaused).toContain(`caused: [failure/${id}]`)
    expect((await workspace.run(["rules", "list"], { cwd: repo.dir })).json().evolutions).toEqual(["01"])

    const evolve = await workspace.run(["rules", "evolve", "01"], { cwd: repo.dir })
    expect(evolve.code, evolve.stderr).toBe(0)
    expect(evolve.json()).toMatchObject({ from: "01", to: "02", path: "rules/02-migrations-run-in-one-transaction-revised.md", proposal: { status: "pending" } })
    const accepted = await workspace.run(["proposal", "accept", evolve.json().proposal.id], { cwd: repo.dir })
    expect(accepted.code, accepted.stderr).toBe(0)
    const a = readFileSync(join(repo.dir, "rules/01-one-transaction.md"), "utf8")
    expect(a.endsWith(`\n---\n${body}`)).toBe(true)
    expect(a).toContain('superseded_by: "02"')
    const aPrime = readFileSync(join(repo.dir, "rules/02-migrations-run-in-one-transaction-revised.md"), "utf8")
    expect(aPrime).toContain('supersedes: ["01"]')
    expect(aPrime).toContain(`introduced_by: "failure/${id}"`)
    expect(aPrime).toContain('scope: ["src/db/**"]')
    expect(aPrime).toContain("CREATE INDEX CONCURRENTLY cannot run inside a transaction block")

    const show = await workspace.run(["rules", "show", "01", "--format", "text"], { cwd: repo.dir })
    expect(show.code).toBe(0)
    expect(show.stdout).toContain("chain      01 → 02")
    expect(show.stdout).toContain("superseded by 02")
    expect((await workspace.run(["rules", "show", "02"], { cwd: repo.dir })).json().chain.map((c: { id: string }) => c.id)).toEqual(["01", "02"])
    // A superseded rule is not evolved twice, and stays in rules/.
    expect((await workspace.run(["rules", "evolve", "01"], { cwd: repo.dir })).code).toBe(1)
    expect(existsSync(join(repo.dir, "rules/01-one-transaction.md"))).toBe(true)
  }, SLOW)
})

describe("maps", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("write produces both maps from package.json and the READMEs; check is clean; drift is named; prose kept", async () => {
    const repo = await setUp(workspace, "maps")
    const write = await workspace.run(["maps", "write"], { cwd: repo.dir })
    expect(write.code, write.stderr).toBe(0)
    expect(write.json()).toMatchObject({ dependencies: 3, components: 2 })
    const stack = readFileSync(join(repo.dir, "context/stack.md"), "utf8")
    expect(stack).toContain("| `pg` | 8.11.0 | runtime | package.json | [docs/adr/0001-postgres.md](../docs/adr/0001-postgres.md) |")
    expect(stack).toContain("| `vitest` | 3.2.7 | dev | package.json | — |")
    const components = readFileSync(join(repo.dir, "context/components.md"), "utf8")
    expect(components).toContain("| `src/api` | API | [src/api/README.md](../src/api/README.md) |")
    expect(components).toContain("| `src/db` | Postgres access and migrations. | [src/db/README.md](../src/db/README.md) |")
    expect((await workspace.run(["maps", "check"], { cwd: repo.dir })).code).toBe(0)

    writeFileSync(join(repo.dir, "context/stack.md"), `${stack}\nOur note on the stack.\n`)
    repo.commit({ "package.json": SHOP["package.json"]!.replace("8.11.0", "8.12.0") }, "bump pg")
    const drift = await workspace.run(["maps", "check", "--format", "text"], { cwd: repo.dir })
    expect(drift.code).toBe(1)
    expect(drift.stdout).toContain("context/stack.md  drift  rows differ: pg")
    const again = await workspace.run(["maps", "write"], { cwd: repo.dir })
    expect(again.code, again.stderr).toBe(0)
    expect(readFileSync(join(repo.dir, "context/stack.md"), "utf8").endsWith("\nOur note on the stack.\n")).toBe(true)
    expect((await workspace.run(["maps", "check"], { cwd: repo.dir })).code).toBe(0)
    expect((await workspace.run(["maps", "write"], { cwd: repo.dir })).json().proposal).toBeUndefined()
  }, SLOW)

  it("a TOML manifest that does not parse is named with its line; the maps still write", async () => {
    const repo = await setUp(workspace, "toml")
    repo.commit({ "Cargo.toml": "[package]\nname = \"x\"\n[dependencies\nserde = \"1\"\n" }, "cargo")
    const write = await workspace.run(["maps", "write"], { cwd: repo.dir })
    expect(write.code, write.stderr).toBe(0)
    expect(write.json().problems).toEqual([{ path: "Cargo.toml", line: 3, message: expect.stringContaining("cannot read Cargo.toml") }])
    mkdirSync(join(repo.dir, "context"), { recursive: true })
  }, SLOW)
})
