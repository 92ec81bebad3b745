import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"
import { makeDatedGitRepo, type DatedGitRepo } from "../support/datedGitRepo.js"

// akm ledger import-ci and mine-git end to end (issue 17 item 2, spec 08 R-LED-4).

const fixtures = path.join(import.meta.dirname, "../fixtures/ledger-ci")

describe("akm ledger import-ci / mine-git", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  let repo: DatedGitRepo

  beforeAll(async () => {
    repo = makeDatedGitRepo(path.join(workspace.root, "app"), workspace.home)
    repo.commit("2026-11-02T09:00:00Z", "feat: start", { "src/db/migrate.ts": "1", "src/api/users.ts": "1", "src/cache/lru.ts": "1" })
    const init = await workspace.run(["init", "project", "--dir", repo.dir])
    expect(init.code, init.stderr).toBe(0)
  })

  it("import-ci of a JUnit file with one failing test adds a ci occurrence (a new record first; the same report again adds nothing)", async () => {
    const r = await workspace.run(["ledger", "import-ci", path.join(fixtures, "one-failure.xml")], { cwd: repo.dir })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({ schemaVersion: 1, bundle: "app", format: "junit", seen: 3, created: 1, appended: 0, failures: [{ module: "src/db", errorClass: "LockTimeout", date: "2026-11-30" }] })
    const id: string = r.json().failures[0].id
    const text = readFileSync(path.join(repo.dir, ".ai/ledger/failure", `${id}.md`), "utf8")
    expect(text).toContain("source: ci")
    expect(text).toContain("2026-11-30")
    const again = await workspace.run(["ledger", "import-ci", path.join(fixtures, "one-failure.xml"), "--bundle", "app"])
    expect(again.json()).toMatchObject({ created: 0, appended: 0, unchanged: 1 })
  })

  it("mine-git: a fix: commit touching the module within 7 days of an occurrence adds a git occurrence; an unmatched fix is reported", async () => {
    repo.commit("2026-12-03T09:00:00Z", "fix(db): take the migration lock with a timeout", { "src/db/migrate.ts": "2" })
    repo.commit("2026-12-04T09:00:00Z", "fix(api): empty list gave a 500", { "src/api/users.ts": "2" })
    const r = await workspace.run(["ledger", "mine-git", "--since", "2026-11-01", "--bundle", "app"])
    expect(r.code, r.stderr).toBe(0)
    const result = r.json()
    expect(result.matched).toMatchObject([{ date: "2026-12-03", kind: "fix", subject: "fix(db): take the migration lock with a timeout", records: [{ after: "2026-11-30", added: true, occurrences: 2 }] }])
    expect(result.unmatched).toMatchObject([{ date: "2026-12-04", subject: "fix(api): empty list gave a 500" }])
    expect(result.churn).toEqual([{ module: "src/db", commits: 2, files: 1 }])
    const id: string = result.matched[0].records[0].id
    expect(readFileSync(path.join(repo.dir, ".ai/ledger/failure", `${id}.md`), "utf8")).toContain(`fix commit ${(result.matched[0].sha as string).slice(0, 12)}`)
    const text = await workspace.run(["ledger", "mine-git", "--since", "2026-11-01", "--format", "text"], { cwd: repo.dir })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain("already recorded")
    expect(text.stdout).toContain("Not recorded (1): something broke and no failure says what")
    expect(text.stdout).toContain("fix(api): empty list gave a 500")
  })

  it("after `akm ledger add failure`, a fix: commit touching its module 2 days later adds a git occurrence", async () => {
    const add = await workspace.run([
      "ledger", "add", "failure", "--bundle", "app", "--title", "Cache eviction races", "--date", "2026-12-05",
      "--field", "module=src/cache", "--field", "operation=evict under load", "--field", "error_class=RaceCondition",
      "--field", "symptom=stale entries after eviction", "--field", "trigger=two writers", "--field", "root_cause=no lock", "--field", "fix=lock the shard"
    ])
    expect(add.code, add.stderr).toBe(0)
    repo.commit("2026-12-07T09:00:00Z", "fix(cache): lock the shard during eviction", { "src/cache/lru.ts": "2" })
    const r = await workspace.run(["ledger", "mine-git", "--since", "2026-11-01", "--bundle", "app"])
    expect(r.code, r.stderr).toBe(0)
    const cache = r.json().matched.find((m: { subject: string }) => m.subject.startsWith("fix(cache)"))
    expect(cache).toMatchObject({ date: "2026-12-07", records: [{ after: "2026-12-05", added: true, occurrences: 2 }] })
    const shown = await workspace.run(["ledger", "show", cache.records[0].id, "--bundle", "app", "--format", "text"])
    expect(shown.stdout).toContain("fix commit")
  })

  it("bad input is a clear error and writes nothing: a file that is not XML (2), a bad --since (2), a shallow history (1)", async () => {
    const notXml = await workspace.run(["ledger", "import-ci", path.join(fixtures, "not-xml.xml"), "--bundle", "app"])
    expect(notXml.code).toBe(2)
    expect(notXml.error().error.message).toContain("not-xml.xml is not XML")
    expect(notXml.error().error.message).toContain(":1:1:")
    const since = await workspace.run(["ledger", "mine-git", "--since", "lately", "--bundle", "app"])
    expect(since.code).toBe(2)
    writeFileSync(path.join(repo.dir, ".git", "shallow"), `${repo.git("rev-parse", "HEAD~1")}\n`)
    const shallow = await workspace.run(["ledger", "mine-git", "--since", "2026-11-01", "--bundle", "app"])
    expect(shallow.code).toBe(1)
    expect(shallow.error().error).toMatchObject({ code: "git_history_unreadable", message: expect.stringContaining("the history is shallow") })
    expect(shallow.error().error.hint).toContain("git fetch --unshallow")
  })
})
