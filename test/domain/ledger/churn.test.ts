import { describe, expect, it } from "vitest"
import { hotspots, isUnderModule, moduleChurn, type TouchingCommit } from "../../../src/domain/ledger/churn.js"

const DAY = 86_400_000
const at = (day: number) => Date.UTC(2026, 10, 1) + day * DAY
const commit = (sha: string, day: number, ...paths: Array<string>): TouchingCommit => ({ sha, time: at(day), paths })

describe("churn (spec 08 R-LED-4)", () => {
  it("a module covers whole path segments, compared like fingerprints (trimmed, lowercased, \\ → /)", () => {
    expect(isUnderModule("src/db/migrate.ts", "src/db")).toBe(true)
    expect(isUnderModule("src/db/migrate.ts", " SRC\\DB\\ ")).toBe(true)
    expect(isUnderModule("src/db/migrate.ts", "./src/db/")).toBe(true)
    expect(isUnderModule("src/db", "src/db")).toBe(true)
    expect(isUnderModule("src/dbx/a.ts", "src/db")).toBe(false)
    expect(isUnderModule("lib/src/db/a.ts", "src/db")).toBe(false)
    expect(isUnderModule("src/db/a.ts", "")).toBe(false)
    expect(isUnderModule("src/db/a.ts", "com.example.db")).toBe(false)
  })

  it("a file touched by 3 commits within 14 days is a hotspot; 3 spread over more than 14 days is not", () => {
    const commits = [
      commit("a", 0, "src/db/lock.ts", "README.md"),
      commit("b", 5, "src/db/lock.ts"),
      commit("c", 14, "src/db/lock.ts", "README.md"),
      commit("d", 30, "README.md"),
      commit("e", 31, "src/db/lock.ts")
    ]
    expect(hotspots(commits)).toEqual([{ path: "src/db/lock.ts", commits: 3, from: at(0), to: at(14) }])
    expect(hotspots([commit("a", 0, "x"), commit("b", 10, "x"), commit("c", 15, "x")])).toEqual([])
  })

  it("module churn counts commits and distinct files under each recorded module once", () => {
    const commits = [commit("a", 0, "src/db/lock.ts", "src/db/pool.ts"), commit("b", 1, "src/db/lock.ts"), commit("c", 2, "src/api/x.ts")]
    expect(moduleChurn(commits, ["src/db", "SRC/DB", "src/cache", ""])).toEqual([
      { module: "src/db", commits: 2, files: 2 },
      { module: "src/cache", commits: 0, files: 0 }
    ])
  })
})
