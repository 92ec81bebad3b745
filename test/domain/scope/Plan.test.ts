import { describe, expect, it } from "vitest"
import { planScope, type Change, type ScopeInput } from "../../../src/domain/scope/Plan.js"

// R-SCP-2: a station has work only when one of its declared inputs changed.

const base: ScopeInput = { changes: [], ignore: [], briefed: new Set(["rules/01-tx.md", "docs/business/refunds.md"]), newCommits: 0, linkedFailures: new Set(["lock-timeout-abc"]) }
const working = (input: Partial<ScopeInput>) => planScope({ ...base, ...input }).filter((s) => s.work).map((s) => s.station)
const mod = (path: string): Change => ({ path, status: "modified" })

describe("planScope", () => {
  it("a one-character change to a doc neither briefed nor under docs/business/ plans no station", () => {
    expect(working({ changes: [mod("docs/notes/typo.md")] })).toEqual([])
    expect(working({ changes: [mod("src/api/orders.js")] })).toEqual([])
  })

  it("a briefed doc or a business rule plans SURFACE only", () => {
    expect(working({ changes: [mod("docs/business/refunds.md")] })).toEqual(["SURFACE"])
    expect(working({ changes: [mod("docs/business/new.md")] })).toEqual(["SURFACE"])
  })

  it("each station fires on its own inputs", () => {
    expect(working({ changes: [mod("rules/01-tx.md")] })).toEqual(["HARDEN", "PROJECT", "SURFACE"])
    expect(working({ changes: [mod("rules/09-unbriefed.md")] })).toEqual(["HARDEN", "PROJECT"])
    expect(working({ changes: [mod(".ai/ledger/failure/lock-timeout-abc.md")] })).toEqual(["CAPTURE", "DISTIL", "HARDEN", "PROJECT"])
    expect(working({ changes: [mod(".ai/ledger/failure/other.md")] })).toEqual(["CAPTURE", "DISTIL", "PROJECT"])
    expect(working({ changes: [mod(".ai/ledger/question/which-plan.md")] })).toEqual(["CAPTURE", "PROJECT", "SURFACE"])
    expect(working({ changes: [mod("context/router-contract.md")] })).toEqual(["PROJECT"])
    expect(working({ changes: [mod("package.json")] })).toEqual(["PROJECT"])
    expect(working({ changes: [mod("docs/adr/0002-queue.md")] })).toEqual(["PROJECT"])
    expect(working({ changes: [mod("src/db/README.md")] })).toEqual(["PROJECT"])
    expect(working({ newCommits: 3 })).toEqual(["CAPTURE"])
  })

  it("an added or removed artifact plans SURFACE (index.json lists every artifact); an edit does not", () => {
    expect(working({ changes: [{ path: "docs/notes/new.md", status: "untracked" }] })).toEqual(["SURFACE"])
    expect(working({ changes: [{ path: "docs/notes/old.md", status: "deleted" }] })).toEqual(["SURFACE"])
  })

  it("honours scope.ignore and names why", () => {
    expect(working({ changes: [mod("docs/business/refunds.md")], ignore: ["docs/business/**"] })).toEqual([])
    const plan = planScope({ ...base, changes: ["rules/a.md", "rules/b.md", "rules/c.md", "rules/d.md"].map(mod) })
    expect(plan.find((s) => s.station === "HARDEN")?.reasons).toEqual(["a rule changed: rules/a.md, rules/b.md, rules/c.md (+1 more)"])
  })
})

describe("planScope since each station's last run", () => {
  it("a change the station already saw with the same bytes is no work; one committed since its run is", () => {
    const rule = mod("rules/01-tx.md")
    expect(working({ changes: [rule], seen: (station) => station === "HARDEN" })).toEqual(["PROJECT", "SURFACE"])
    expect(working({ committed: { PROJECT: [mod("package.json")] } })).toEqual(["PROJECT"])
    expect(working({ committed: { PROJECT: [mod("docs/notes/typo.md")] } })).toEqual([])
    expect(working({ committed: { SURFACE: [mod("docs/business/refunds.md")] }, seen: () => true })).toEqual([])
  })

  it("scope.ignore applies to committed changes too", () => {
    expect(working({ ignore: ["vendor/**"], committed: { PROJECT: [mod("vendor/x/package.json")] } })).toEqual([])
  })
})
