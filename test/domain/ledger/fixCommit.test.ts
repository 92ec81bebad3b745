import { describe, expect, it } from "vitest"
import { classifyCommit } from "../../../src/domain/ledger/fixCommit.js"

describe("fix commits (spec 08 R-LED-4)", () => {
  it.each([
    ["fix: retry the migration lock", "fix"],
    ["fix(db): retry the migration lock", "fix"],
    ["fix(db)!: drop the old lock table", "fix"],
    ["Fix: capitalised", "fix"],
    ["hotfix: restore the quota check", "fix"],
    ["bugfix(api): 500 on empty list", "fix"],
    ["Fix race between two writers", "fix"],
    ["Fixes the flaky login test", "fix"],
    ["Apply hotfix for the release", "fix"],
    ["Quick bug-fix in billing", "fix"],
    ["refactor: split the module\n\nFixes #123", "fix"],
    ["chore: tidy\n\nfixed acme/app#7", "fix"],
    ['Revert "feat: new cache"\n\nThis reverts commit 0123abc.', "revert"],
    ["revert: the cache change", "revert"]
  ] as const)("%j is a %s commit", (message, kind) => {
    expect(classifyCommit(message)).toBe(kind)
  })

  it.each([
    "feat: add the ledger",
    "docs: how to fix a broken index",
    "prefix the logger",
    "fixture for the billing tests",
    "fixup! feat: add the ledger",
    "fix-ups in the docs",
    "refactor: mentions #123 but fixes nothing",
    "Merge branch 'fix/lock' into main"
  ])("%j is not a fix commit", (message) => {
    expect(classifyCommit(message)).toBeUndefined()
  })
})
