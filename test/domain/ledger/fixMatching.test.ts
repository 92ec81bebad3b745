import { describe, expect, it } from "vitest"
import { matchFixCommits, type FixCommit, type MatchableRecord } from "../../../src/domain/ledger/fixMatching.js"
import { parseSince } from "../../../src/domain/ledger/since.js"

const at = (iso: string) => Date.parse(iso)
const fix = (sha: string, iso: string, paths: ReadonlyArray<string>, message = `fix: ${sha}`): FixCommit => ({ sha, time: at(iso), paths, message, subject: message.split("\n")[0]!, kind: "fix" })
const lock: MatchableRecord = { id: "lock-timeout", fingerprint: "locktimeout-0123456789ab", module: "src/db", days: ["2026-11-10", "2026-11-20"] }
const quota: MatchableRecord = { id: "quota", fingerprint: "quotaexceeded-ba9876543210", module: "src/billing", days: ["2026-11-01"] }

describe("the fix-commit matching rule (spec 08 R-LED-4)", () => {
  it("a fix touching the module on the day of an occurrence or up to 7 days after matches; before or later does not", () => {
    const commits = [
      fix("same-day", "2026-11-10T23:00:00Z", ["src/db/lock.ts"]),
      fix("day-7", "2026-11-27T12:00:00Z", ["src/db/pool.ts"]),
      fix("day-8", "2026-11-18T00:00:01Z", ["src/db/lock.ts"]),
      fix("before", "2026-11-09T12:00:00Z", ["src/db/lock.ts"]),
      fix("other-module", "2026-11-11T12:00:00Z", ["src/api/users.ts"])
    ]
    const result = matchFixCommits(commits, [lock, quota])
    expect(result.matched.map((m) => [m.commit.sha, m.records.map((r) => [r.id, r.anchor])])).toEqual([
      ["same-day", [["lock-timeout", "2026-11-10"]]],
      ["day-7", [["lock-timeout", "2026-11-20"]]]
    ])
    expect(result.unmatched.map((c) => c.sha)).toEqual(["day-8", "before", "other-module"])
  })

  it("a fix naming a record's fingerprint matches whatever it touches and whenever it lands", () => {
    const named = fix("named", "2026-06-01T00:00:00Z", ["docs/x.md"], "fix: the lock again\n\nSee locktimeout-0123456789ab")
    expect(matchFixCommits([named], [lock, quota]).matched).toEqual([{ commit: named, records: [{ id: "lock-timeout", fingerprint: lock.fingerprint, anchor: undefined }] }])
  })

  it("one commit can fix two records; a record without occurrences from other sources anchors nothing", () => {
    const both = fix("both", "2026-11-05T00:00:00Z", ["src/billing/q.ts", "src/db/lock.ts"])
    const onlyGit: MatchableRecord = { ...lock, id: "git-only", days: [] }
    const result = matchFixCommits([both], [{ ...lock, days: ["2026-11-04"] }, quota, onlyGit])
    expect(result.matched[0]!.records.map((r) => r.id)).toEqual(["lock-timeout", "quota"])
  })
})

describe("--since", () => {
  const now = Date.parse("2026-12-01T12:00:00Z")
  it("takes days, weeks and ISO dates; anything else is undefined", () => {
    expect(parseSince("90d", now)).toBe(now - 90 * 86_400_000)
    expect(parseSince("2w", now)).toBe(now - 14 * 86_400_000)
    expect(parseSince("2026-09-01", now)).toBe(Date.parse("2026-09-01T00:00:00Z"))
    expect(parseSince("2026-09-01T10:00:00+02:00", now)).toBe(Date.parse("2026-09-01T08:00:00Z"))
    for (const bad of ["90", "3 months", "yesterday", "2026-13-01", "-5d", ""]) expect(parseSince(bad, now)).toBeUndefined()
  })
})
