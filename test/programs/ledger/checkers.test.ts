import { describe, expect, it } from "vitest"
import { fingerprint, serializeRecord, type LedgerRecord } from "../../../src/domain/ledger/index.js"
import { detectRecurrences, draftFor, scopeGlob } from "../../../src/programs/ledger/distil.js"
import { parseLedgerFile } from "../../../src/programs/ledger/store.js"
import { checkLedger } from "../../../src/programs/ledger/verify.js"

// R-CHK-1: each checker fires on a broken ledger and stays silent on its healthy twin.

const fields = { module: "src/db", operation: "migrate x", error_class: "LockTimeout" }
const fp = fingerprint(fields)

const failure = (over: Partial<LedgerRecord> = {}): LedgerRecord => ({
  id: fp,
  kind: "failure",
  title: "Lock timeout",
  fingerprint: fp,
  fields: { symptom: "s", trigger: "t", root_cause: "a long transaction", fix: "set lock_timeout", ...fields },
  occurrences: [{ date: "2026-08-14", source: "self-report" }],
  ...over
})

const file = (record: LedgerRecord, path = `.ai/ledger/${record.kind}/${record.id}.md`, text = serializeRecord(record)) =>
  parseLedgerFile({ path, kind: path.split("/")[2]!, id: path.split("/")[3]!.replace(/\.md$/, ""), text })

const decision = (choice: string, date: string) =>
  file({ id: `treat-${fp}-as-${choice}`, kind: "decision", title: "d", fields: { what: "w", alternatives: ["a"], why: "y", cost_accepted: "none" }, occurrences: [{ date, source: "self-report" }], meta: { decides: fp, choice } })

describe("ledger verify", () => {
  it("silent on a healthy ledger", () => {
    expect(checkLedger([file(failure()), decision("neither", "2026-09-01")])).toEqual([])
  })

  it("fires on bad YAML, a missing field, a duplicate id, a duplicate fingerprint and a stale fingerprint", () => {
    const findings = checkLedger([
      file(failure(), ".ai/ledger/failure/broken.md", "---\nkind: failure\nid: broken\ntitle: [x\n---\n"),
      file(failure({ id: "no-fix" }), ".ai/ledger/failure/no-fix.md", serializeRecord(failure({ id: "no-fix" })).replace("## Fix\n\nset lock_timeout\n\n", "")),
      file(failure()),
      file(failure({ id: "twin" })),
      file({ ...failure({ id: fp }), kind: "surprise", fields: { behavior: "b", misleading_symptom: "m", why: "w" } }),
      file(failure({ id: "moved", fingerprint: "lock-timeout-000000000000" }))
    ])
    expect(findings.map((f) => [f.code, f.path])).toEqual([
      ["invalid-yaml", ".ai/ledger/failure/broken.md"],
      ["ledger-missing-field", ".ai/ledger/failure/no-fix.md"],
      ["duplicate-fingerprint", ".ai/ledger/failure/twin.md"],
      ["duplicate-ledger-id", `.ai/ledger/surprise/${fp}.md`],
      ["fingerprint-mismatch", ".ai/ledger/failure/moved.md"]
    ])
    expect(findings.every((f) => f.line >= 1)).toBe(true)
    expect(findings.find((f) => f.code === "fingerprint-mismatch")?.severity).toBe("warning")
  })
})

describe("distil detect", () => {
  const twice = failure({ occurrences: [{ date: "2026-08-14", source: "self-report" }, { date: "2026-08-26", source: "ci" }] })

  it("silent at one occurrence, fires at two (R-DIS-1)", () => {
    expect(detectRecurrences([file(failure())], "01")).toEqual([])
    const items = detectRecurrences([file(twice)], "01")
    expect(items.map((i) => [i.id, i.occurrences, i.question])).toEqual([[fp, 2, "This has now happened twice — 2026-08-14 and 2026-08-26. Should it become a rule, a skill, or neither?"]])
  })

  it("neither is final; a rule is asked about again only after a later recurrence (R-DIS-3)", () => {
    expect(detectRecurrences([file(twice), decision("neither", "2026-08-27")], "01")).toEqual([])
    expect(detectRecurrences([file({ ...twice, occurrences: [...twice.occurrences, { date: "2027-01-01", source: "git" }] }), decision("neither", "2026-08-27")], "01")).toEqual([])
    expect(detectRecurrences([file(twice), decision("rule", "2026-08-27")], "01")).toEqual([])
    const again = detectRecurrences([file({ ...twice, occurrences: [...twice.occurrences, { date: "2026-09-02", source: "ci" }] }), decision("rule", "2026-08-27")], "01")
    expect(again[0]?.recurredAfter).toEqual({ choice: "rule", decided: "2026-08-27" })
  })

  it("drafts deterministically: purpose = root cause, scope = the module's glob, mandate = the fix (R-DIS-2)", () => {
    const draft = draftFor(twice, "07")
    expect(draftFor(twice, "07")).toEqual(draft)
    expect(draft.rule).toMatchObject({ id: "07", path: "rules/07-lock-timeout-db.md", scope: ["src/db/**"] })
    expect(draft.rule.text).toContain("## Purpose\n\na long transaction")
    expect(draft.rule.text).toContain("## Mandatory rules\n\n1. set lock_timeout")
    expect(draft.rule.text).toContain(`introduced_by: failure/${fp}`)
    expect(draft.test).toContain("2026-08-14 and 2026-08-26")
    expect(draft.skill.description).toMatch(/Use when/)
    expect(scopeGlob("src\\api\\handler.ts")).toBe("src/api/handler.ts")
    expect(scopeGlob("Src/DB/")).toBe("src/db/**")
  })
})
