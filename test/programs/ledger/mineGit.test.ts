import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, TestClock } from "effect"
import { parseRecord } from "../../../src/domain/ledger/index.js"
import { AkmTest } from "../../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../../src/programs/bundle/add.js"
import { mineGit } from "../../../src/programs/ledger/mineGit.js"
import { recordFailureOccurrence } from "../../../src/programs/ledger/record.js"
import { makeDatedGitRepo } from "../../support/datedGitRepo.js"
import { caller, failure, folder } from "../writeFixtures.js"

/** A project bundle "app" over a git repository with a fix commit inside the window and others outside it. */
const project = Effect.gen(function* () {
  const home = folder()
  const repo = makeDatedGitRepo(path.join(home, "app"), home)
  repo.commit("2026-11-01T09:00:00Z", "feat: start", { "src/db/lock.ts": "1", "src/api/users.ts": "1", ".ai/config.json": "{}\n" })
  repo.commit("2026-11-12T09:00:00Z", "fix(db): take the lock with a timeout", { "src/db/lock.ts": "2" })
  repo.commit("2026-11-25T09:00:00Z", "fix(db): the lock again, 15 days later", { "src/db/lock.ts": "3" })
  repo.commit("2026-11-26T09:00:00Z", "fix(api): empty list gave a 500", { "src/api/users.ts": "2" })
  yield* bundleAdd({ source: repo.dir, name: "app", adapter: "project", writable: true, ...caller })
  yield* TestClock.setTime(Date.parse("2026-12-01T12:00:00Z"))
  return repo
})

const record = (root: string, id: string) => {
  const parsed = parseRecord(fs.readFileSync(path.join(root, ".ai/ledger/failure", `${id}.md`), "utf8"))
  if (parsed._tag === "Left") throw new Error(parsed.left.message)
  return parsed.right
}

describe("ledger mine-git (spec 08 R-LED-4)", () => {
  it.effect("a fix: commit touching the module within 7 days of an occurrence adds a git occurrence; mining again adds nothing; the rest is reported", () =>
    Effect.gen(function* () {
      const repo = yield* project
      const lock = yield* recordFailureOccurrence({ bundle: "app", fields: { module: "src/db", operation: "migrate src/db/0042.sql:17", error_class: "LockTimeout", symptom: "migration hung" }, source: "self-report", date: "2026-11-10" })
      const result = yield* mineGit({ bundle: "app", cwd: repo.dir })
      expect(result).toMatchObject({ bundle: "app", root: repo.dir, since: "2026-09-02", commits: 4, unreadable: [] })
      expect(result.matched).toEqual([
        { sha: expect.any(String), date: "2026-11-12", kind: "fix", subject: "fix(db): take the lock with a timeout", records: [{ id: lock.id, fingerprint: lock.fingerprint, after: "2026-11-10", added: true, occurrences: 2 }] }
      ])
      expect(result.unmatched.map((c) => [c.date, c.subject])).toEqual([
        ["2026-11-26", "fix(api): empty list gave a 500"],
        ["2026-11-25", "fix(db): the lock again, 15 days later"]
      ])
      expect(result.churn).toEqual([{ module: "src/db", commits: 3, files: 1 }])
      const sha = result.matched[0]!.sha
      expect(record(repo.dir, lock.id).occurrences).toEqual([
        { date: "2026-11-10", source: "self-report" },
        { date: "2026-11-12", source: "git", note: `fix commit ${sha.slice(0, 12)}: fix(db): take the lock with a timeout` }
      ])
      expect(record(repo.dir, lock.id).sources).toEqual(["self-report", "git"])
      const again = yield* mineGit({ bundle: "app", cwd: repo.dir })
      expect(again.matched[0]!.records[0]).toMatchObject({ added: false, occurrences: 2 })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a secret in a commit subject is redacted in the result and in the occurrence note", () =>
    Effect.gen(function* () {
      const repo = yield* project
      const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
      repo.commit("2026-11-27T09:00:00Z", `fix(api): stop logging ${token}`, { "src/api/users.ts": "3" })
      const api = yield* recordFailureOccurrence({ bundle: "app", fields: { module: "src/api", operation: "list users", error_class: "Http500" }, source: "ci", date: "2026-11-26" })
      const result = yield* mineGit({ bundle: "app", cwd: repo.dir })
      expect(JSON.stringify(result)).not.toContain(token)
      expect(result.matched.map((m) => m.subject)).toContain("fix(api): stop logging [redacted:github-token]")
      expect(fs.readFileSync(path.join(repo.dir, ".ai/ledger/failure", `${api.id}.md`), "utf8")).not.toContain(token)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a shallow history or a bad --since writes nothing", () =>
    Effect.gen(function* () {
      const repo = yield* project
      const lock = yield* recordFailureOccurrence({ bundle: "app", fields: { module: "src/db", operation: "migrate", error_class: "LockTimeout" }, source: "self-report", date: "2026-11-10" })
      expect(failure(yield* Effect.exit(mineGit({ bundle: "app", cwd: repo.dir, since: "a while" })))._tag).toBe("UsageError")
      const tip = repo.git("rev-parse", "HEAD~1")
      fs.writeFileSync(path.join(repo.dir, ".git", "shallow"), `${tip}\n`)
      const error = failure(yield* Effect.exit(mineGit({ bundle: "app", cwd: repo.dir })))
      expect(error).toMatchObject({ _tag: "GitHistoryUnreadable", message: expect.stringContaining("the history is shallow") })
      expect(record(repo.dir, lock.id).occurrences).toHaveLength(1)
    }).pipe(Effect.provide(AkmTest)))
})
