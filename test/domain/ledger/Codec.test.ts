import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { layoutsOf, parseRecord, peekFingerprint, serializeRecord, type LedgerRecord } from "../../../src/domain/ledger/index.js"

// Spec 08 §2: markdown ledger records, parsed with yaml and mdast.

const failure: LedgerRecord = {
  id: "lock-timeout-0123456789ab",
  kind: "failure",
  title: "Migration lock timeout",
  fingerprint: "lock-timeout-0123456789ab",
  fields: {
    symptom: "LockTimeout at 2026-08-14 after 5000ms\n\n## Not a field\n\nstill the symptom\nunderlined\n---",
    trigger: "npm run migrate",
    root_cause: "a long transaction holds the lock",
    fix: "run migrations with lock_timeout",
    module: "src/db",
    operation: "migrate src/db/0042.sql:17",
    error_class: "LockTimeout",
    extra_notes: "kept"
  },
  occurrences: [{ date: "2026-08-14", source: "self-report" }, { date: "2026-08-26", source: "ci", note: "db.test › migrate" }],
  sources: ["self-report", "ci"]
}

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}

describe("ledger record codec", () => {
  it("round-trips a record; a field body containing `## ` never splits it", () => {
    const text = serializeRecord(failure)
    const back = right(parseRecord(text, { expect: { kind: "failure", id: failure.id } }))
    expect(back).toEqual(failure)
    expect(serializeRecord(back)).toBe(text)
    expect(peekFingerprint(text)).toBe(failure.fingerprint)
  })

  it("a `## ` inside a code fence stays in its field", () => {
    const text = serializeRecord({ ...failure, fields: { ...failure.fields, fix: "```sh\n## not a heading\nset lock_timeout\n```" } })
    expect(right(parseRecord(text)).fields["fix"]).toBe("```sh\n## not a heading\nset lock_timeout\n```")
  })

  it("keeps unknown frontmatter keys, unknown sections, their headings and list fields", () => {
    const text = "---\nkind: decision\nid: d1\ntitle: Pick\nadr: docs/adr/0003.md\n---\n\nWhy we did it.\n\n## What\n\nUse X\n\n## Alternatives\n\n- Y\n- Z\n\n## Why\n\nfast\n\n## Cost accepted\n\nnone\n\n## Follow-ups (later)\n\nsome\n"
    const record = right(parseRecord(text))
    expect(record.meta).toEqual({ adr: "docs/adr/0003.md" })
    expect(record.fields["alternatives"]).toEqual(["Y", "Z"])
    expect(record.fields["follow_ups_later"]).toBe("some")
    expect(record.preamble).toBe("Why we did it.")
    const again = serializeRecord(record)
    expect(again).toContain("## Follow-ups (later)\n\nsome\n")
    expect(again).toContain("adr: docs/adr/0003.md")
    expect(right(parseRecord(again))).toEqual(record)
  })

  it("reports bad YAML, a missing required field and a kind/id mismatch with their lines", () => {
    const bad = parseRecord("---\nkind: failure\nid: [x\ntitle: t\n---\n")
    expect(Either.isLeft(bad) && bad.left.code).toBe("invalid-yaml")
    expect(Either.isLeft(bad) && bad.left.line).toBeGreaterThanOrEqual(3)
    const missing = serializeRecord(failure).replace("## Fix\n\nrun migrations with lock_timeout\n\n", "")
    const m = parseRecord(missing)
    expect(Either.isLeft(m) && m.left).toMatchObject({ code: "ledger-missing-field", message: expect.stringContaining("`fix`") })
    const wrong = parseRecord(serializeRecord(failure), { expect: { kind: "failure", id: "other" } })
    expect(Either.isLeft(wrong) && wrong.left).toMatchObject({ code: "invalid-ledger-record", line: 3 })
    expect(Either.isLeft(parseRecord("# no frontmatter\n"))).toBe(true)
    const occ = parseRecord("---\nkind: surprise\nid: s\ntitle: t\noccurrences:\n  - date: yesterday\n---\n")
    expect(Either.isLeft(occ) && occ.left).toMatchObject({ code: "invalid-ledger-record", line: 5 })
  })
})

describe("the line scan agrees with mdast", () => {
  const samples = [
    serializeRecord(failure),
    serializeRecord({ ...failure, fields: { ...failure.fields, alternatives: ["a", "b"] } }),
    "---\nkind: decision\nid: d1\ntitle: Pick\n---\n\nlead\n\n## What\n\nUse X\n\n## Alternatives\n\n- Y\n\n- Z\n\n## Why ##\n\nfast\n\n##\n\n## Cost accepted\n\nnone\n",
    "---\nkind: surprise\nid: s\ntitle: t\n---\n## Behavior\n- a\nlazy line\n## Why\n\nb\n"
  ]
  it.each(samples.map((s, i) => [i, s] as const))("sample %i: same sections, same record", (_, text) => {
    const { fast, mdast } = layoutsOf(text)
    expect(fast).toBeDefined()
    const view = (l: typeof fast) => l?.sections.map((s) => ({ heading: s.heading, line: s.line, list: s.list, body: text.slice(s.bodyStart, s.end).trim() }))
    expect(view(fast)).toEqual(view(mdast))
    expect(fast?.yaml.trim()).toBe(mdast?.yaml.trim())
  })

  it("falls back to mdast where a line scan could be wrong", () => {
    const fenced = "---\nkind: x\nid: a\ntitle: t\n---\n\n## A\n\n```\n## not a field\n```\n\n## B\n\nb\n"
    expect(layoutsOf(fenced).fast).toBeUndefined()
    const record = right(parseRecord(fenced))
    expect(Object.keys(record.fields)).toEqual(["a", "b"])
    const setext = "---\nkind: x\nid: a\ntitle: t\n---\n\n## A\n\ntext\n---\n"
    expect(layoutsOf(setext).fast).toBeUndefined()
  })
})
