import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, TestClock } from "effect"
import { GitHistoryIsomorphic } from "../../../src/layers/git/GitHistoryIsomorphic.js"
import type { MatchableRecord } from "../../../src/domain/ledger/fixMatching.js"
import { mineGitHistory } from "../../../src/programs/ledger/gitMining.js"
import { makeDatedGitRepo } from "../../support/datedGitRepo.js"

const repoWithFixes = () =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-mine-")))
      const repo = makeDatedGitRepo(path.join(home, "repo"), home)
      repo.commit("2026-11-01T09:00:00Z", "feat: start", { "src/db/lock.ts": "1", "src/api/users.ts": "1" })
      repo.commit("2026-11-12T09:00:00Z", "fix(db): take the lock with a timeout", { "src/db/lock.ts": "2" })
      repo.commit("2026-11-13T09:00:00Z", "refactor(db): tidy", { "src/db/lock.ts": "3" })
      repo.commit("2026-11-14T09:00:00Z", "chore(db): more tidying", { "src/db/lock.ts": "4" })
      repo.commit("2026-11-25T09:00:00Z", "fix(db): the lock again, too late for the window", { "src/db/lock.ts": "5" })
      repo.commit("2026-11-26T09:00:00Z", "fix(api): empty list 500", { "src/api/users.ts": "2" })
      return { home, repo }
    }),
    ({ home }) => Effect.sync(() => fs.rmSync(home, { recursive: true, force: true }))
  )

const lock: MatchableRecord = { id: "locktimeout-0123456789ab", fingerprint: "locktimeout-0123456789ab", module: "src/db", days: ["2026-11-10"] }

describe("mineGitHistory (ledger mine-git, spec 08 R-LED-4)", () => {
  it.scoped("a fix touching the module within 7 days of an occurrence matches; fixes outside the window or the module are unmatched; churn and hotspots are measured", () =>
    Effect.gen(function* () {
      const { repo } = yield* repoWithFixes()
      yield* TestClock.setTime(Date.parse("2026-12-01T12:00:00Z"))
      const result = yield* mineGitHistory(repo.dir, "90d", [lock])
      expect(result.root).toBe(repo.dir)
      expect(result.commits).toBe(6)
      expect(result.matched.map((m) => [m.commit.subject, m.records.map((r) => [r.id, r.anchor])])).toEqual([
        ["fix(db): take the lock with a timeout", [["locktimeout-0123456789ab", "2026-11-10"]]]
      ])
      expect(result.unmatched.map((c) => c.subject)).toEqual(["fix(api): empty list 500", "fix(db): the lock again, too late for the window"])
      expect(result.churn).toEqual([{ module: "src/db", commits: 5, files: 1 }])
      expect(result.hotspots.map((h) => [h.path, h.commits])).toEqual([["src/db/lock.ts", 4]])
    }).pipe(Effect.provide(GitHistoryIsomorphic)))

  it.scoped("--since bounds the walk (an ISO date too); a bad --since is a usage error", () =>
    Effect.gen(function* () {
      const { repo } = yield* repoWithFixes()
      yield* TestClock.setTime(Date.parse("2026-12-01T12:00:00Z"))
      const recent = yield* mineGitHistory(repo.dir, "2026-11-20", [lock])
      expect(recent.commits).toBe(2)
      expect(recent.matched).toEqual([])
      expect((yield* mineGitHistory(repo.dir, "1w", [])).commits).toBe(2)
      const bad = yield* Effect.exit(mineGitHistory(repo.dir, "three months", []))
      expect(Exit.isFailure(bad) && bad.cause._tag === "Fail" && bad.cause.error).toMatchObject({ _tag: "UsageError", message: "--since 'three months' is not a span or a date" })
    }).pipe(Effect.provide(GitHistoryIsomorphic)))
})
