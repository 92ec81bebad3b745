import { describe, expect, it } from "vitest"
import { dueRevisits, findConflicts, scopeFindings } from "../../../src/domain/project/Conflicts.js"
import { renderEvolution } from "../../../src/domain/project/Evolve.js"
import { globProblem, globsOverlap, scopesOverlap } from "../../../src/domain/project/Globs.js"
import { mandatesOf } from "../../../src/domain/project/Mandates.js"
import { editRuleFrontmatter, parseRuleFile, type RuleFile } from "../../../src/domain/project/RuleFile.js"

const rule = (path: string, text: string): RuleFile => {
  const parsed = parseRuleFile(path, text)
  if ("problem" in parsed) throw new Error(parsed.problem.message)
  return parsed.rule
}

const structured = (id: string, scope: string, must: boolean, subject: string) =>
  rule(`rules/${id}-r.md`, `---\nid: "${id}"\nscope: ["${scope}"]\nmandates:\n  - { must: ${must}, subject: "${subject}" }\n---\n\n# Rule ${id}\n`)

const prose = (id: string, scope: string, line: string) =>
  rule(`rules/${id}-p.md`, `---\nid: "${id}"\nscope: ["${scope}"]\n---\n\n# Rule ${id}\n\n## Mandatory rules\n\n1. ${line}\n`)

const TRACKED = ["README.md", "src/billing/quota.ts", "src/billing/invoice.ts", "src/db/migrations/0042.sql", "src/db/pool.ts", "src/api/users.ts"]

describe("rule frontmatter (R-HAR-1): edits change frontmatter only", () => {
  const text = `---\n# why this rule exists\nid: "07"   # keep quoted\nscope: ["src/billing/**"]\nmandates:\n  - { must: true, subject: "retry idempotent writes" }\n---\n\n# Retry\n\nBody with --- and\n\n## Mandatory rules\n\n1. Retry idempotent writes.\n`

  it("appending a caused link keeps the body byte-identical and every other key as written", () => {
    const after = editRuleFrontmatter(text, [{ op: "append", key: "caused", value: "failure/a-1" }])
    const body = text.slice(text.indexOf("\n---\n") + 5)
    expect(after.endsWith(body)).toBe(true)
    expect(after).toContain(`# why this rule exists\nid: "07"   # keep quoted\nscope: ["src/billing/**"]\nmandates:\n  - { must: true, subject: "retry idempotent writes" }\ncaused: [failure/a-1]\n`)
    const again = editRuleFrontmatter(after, [{ op: "append", key: "caused", value: "failure/b-2" }, { op: "append", key: "caused", value: "failure/a-1" }])
    expect(rule("rules/07.md", again).caused).toEqual(["failure/a-1", "failure/b-2"])
    expect(again.endsWith(body)).toBe(true)
  })

  it("setting superseded_by on a rule without frontmatter adds one and keeps the text", () => {
    const plain = "# Plain rule\n\nNo frontmatter.\n"
    const after = editRuleFrontmatter(plain, [{ op: "set", key: "superseded_by", value: "08" }])
    expect(after.endsWith(plain)).toBe(true)
    expect(rule("rules/03-plain.md", after)).toMatchObject({ id: "03", supersededBy: "08" })
  })

  it("CRLF files stay CRLF and their body unchanged", () => {
    const crlf = text.replace(/\n/g, "\r\n")
    const after = editRuleFrontmatter(crlf, [{ op: "set", key: "superseded_by", value: "08" }])
    expect(after.endsWith(crlf.slice(crlf.indexOf("\r\n---\r\n") + 7))).toBe(true)
    expect(after).toContain('superseded_by: "08"\r\n---\r\n')
  })

  it("a malformed frontmatter is a problem naming its line", () => {
    const parsed = parseRuleFile("rules/x.md", "---\nid: 1\nscope: [src/**\n---\n# x\n")
    expect(parsed).toMatchObject({ problem: { path: "rules/x.md", line: expect.any(Number), message: expect.stringContaining("not valid YAML") } })
  })
})

describe("scope globs", () => {
  it("malformed globs are named", () => {
    expect(globProblem("src/[billing/**")).toContain("opens a [")
    expect(globProblem("src/{a,b/**")).toContain("opens a {")
    expect(globProblem("/etc/**")).toContain("absolute")
    expect(globProblem("../x/**")).toContain("leaves the repository")
    expect(globProblem("src/billing/**")).toBeUndefined()
  })

  it("syntactic overlap: fires on globs that can share a path, silent on disjoint ones", () => {
    expect(globsOverlap("src/**", "src/db/*.sql")).toBe(true)
    expect(globsOverlap("src/*/new/**", "src/db/**")).toBe(true)
    expect(globsOverlap("**/*.ts", "src/billing/**")).toBe(true)
    expect(globsOverlap("src/*.ts", "src/*.js")).toBe(false)
    expect(globsOverlap("src/billing/**", "src/api/**")).toBe(false)
    expect(globsOverlap("lib/*.ts", "src/*.ts")).toBe(false)
    expect(scopesOverlap([], ["src/api/**"])).toBe(true)
  })
})

describe("mandates", () => {
  it("prose polarity from the stated words; structured ones from must", () => {
    const m = mandatesOf(rule("rules/1.md", "# R\n\n## Mandatory rules\n\n1. Never retry payment captures automatically.\n2. Log every retry of a payment capture.\n\n## Other\n\n3. not a mandate\n"))
    expect(m.map((x) => [x.must, x.line])).toEqual([[false, 5], [true, 6]])
    expect(mandatesOf(structured("01", "src/**", false, "x y z"))[0]).toMatchObject({ must: false, structured: true, line: 4 })
  })
})

describe("the conflict checker (R-HAR-3, R-CHK-1)", () => {
  it("fires: overlapping scopes on a real file with opposite structured mandates", () => {
    const a = structured("01", "src/db/**", true, "run migrations inside one transaction")
    const b = structured("02", "src/db/migrations/*.sql", false, "Run migrations inside one transaction.")
    const found = findConflicts([a, b], TRACKED)
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ overlap: "files", files: ["src/db/migrations/0042.sql"], a: { rule: "01", must: true }, b: { rule: "02", must: false } })
    expect(found[0]!.adrStub).toContain("# Resolve the conflict between rule 01 and rule 02")
  })

  it("silent: same mandates, disjoint scopes, a superseded rule, or different subjects", () => {
    const a = structured("01", "src/db/**", true, "run migrations inside one transaction")
    expect(findConflicts([a, structured("02", "src/db/**", true, "run migrations inside one transaction")], TRACKED)).toEqual([])
    expect(findConflicts([a, structured("02", "src/api/**", false, "run migrations inside one transaction")], TRACKED)).toEqual([])
    expect(findConflicts([a, structured("02", "src/db/**", false, "log every migration")], TRACKED)).toEqual([])
    const old = rule("rules/02-old.md", `---\nid: "02"\nsuperseded_by: "03"\nscope: ["src/db/**"]\nmandates:\n  - { must: false, subject: "run migrations inside one transaction" }\n---\n# Old\n`)
    expect(findConflicts([a, old], TRACKED)).toEqual([])
  })

  it("prose: fires on opposite polarity sharing three stemmed content words, silent with two", () => {
    const a = prose("10", "src/billing/**", "Retry failed payment captures with backoff.")
    const b = prose("11", "src/billing/quota.ts", "Never retry a failed payment capture.")
    expect(findConflicts([a, b], TRACKED)).toHaveLength(1)
    const c = prose("12", "src/billing/**", "Never retry invoices that failed.")
    expect(findConflicts([a, c], TRACKED)).toEqual([])
  })

  it("falls back to syntactic overlap when no tracked file matches both; an empty scope overlaps everything", () => {
    const a = structured("01", "src/new/**", true, "use the queue")
    const b = structured("02", "src/*/jobs/**", false, "use the queue")
    expect(findConflicts([a, b], TRACKED)).toMatchObject([{ overlap: "globs", files: [] }])
    const c = rule("rules/03.md", `---\nid: "03"\nmandates:\n  - { must: false, subject: "use the queue" }\n---\n# Everywhere\n`)
    expect(findConflicts([a, c], TRACKED)).toMatchObject([{ overlap: "everything" }])
  })

  it("reports a malformed glob and a scope that matches nothing, with file and line", () => {
    const bad = rule("rules/05.md", `---\nid: "05"\nscope: ["src/[oops/**", "nowhere/**"]\n---\n# Bad\n`)
    expect(scopeFindings([bad], TRACKED)).toEqual([
      { code: "malformed-glob", path: "rules/05.md", line: 3, message: expect.stringContaining("opens a [") },
      { code: "scope-matches-nothing", path: "rules/05.md", line: 3, message: "scope 'nowhere/**' matches no tracked file" }
    ])
    expect(scopeFindings([structured("01", "src/db/**", true, "x")], TRACKED)).toEqual([])
  })
})

describe("revisit_when (R-HAR-4)", () => {
  it("surfaces a due date and a missing path; silent before the date and while the path exists", () => {
    const due = rule("rules/06.md", `---\nid: "06"\nrevisit_when: { date: 2026-03-01 }\n---\n# Dated\n`)
    const gone = rule("rules/07.md", `---\nid: "07"\nrevisit_when: { pathMissing: "src/legacy/**" }\n---\n# Legacy\n`)
    const here = rule("rules/08.md", `---\nid: "08"\nrevisit_when: { pathMissing: "src/db/**" }\n---\n# Db\n`)
    expect(dueRevisits([due, gone, here], TRACKED, "2026-03-01").map((r) => r.rule)).toEqual(["06", "07"])
    expect(dueRevisits([due], TRACKED, "2026-02-28")).toEqual([])
  })
})

describe("evolution (R-HAR-2)", () => {
  const a = rule("rules/01-one-tx.md", `---\nid: "01"\nscope: ["src/db/**"]\ncaused: [failure/active-sql-1]\n---\n\n# Migrations run in one transaction\n\n## Purpose\n\nA half-applied migration leaves the schema broken.\n\n## Mandatory rules\n\n1. Run every migration inside one transaction.\n`)
  const failure = { ref: "failure/active-sql-1", title: "Index build blocked", symptom: "CREATE INDEX CONCURRENTLY cannot run inside a transaction block", rootCause: "rule 01 wraps every migration", fix: "run CONCURRENTLY statements in their own migration", module: "src/db/migrations" }

  it("renders A' deterministically with supersedes, introduced_by, scope and must-satisfy-both", () => {
    const first = renderEvolution(a, [failure], "02")
    expect(renderEvolution(a, [failure], "02")).toEqual(first)
    if ("problem" in first) throw new Error(first.problem)
    const evolved = rule(first.path, first.text)
    expect(evolved).toMatchObject({ id: "02", supersedes: ["01"], introducedBy: "failure/active-sql-1", scope: ["src/db/**"] })
    expect(first.text).toContain("A half-applied migration leaves the schema broken.")
    expect(first.text).toContain("CREATE INDEX CONCURRENTLY cannot run inside a transaction block")
    expect(first.text).toContain("Must satisfy both")
  })

  it("a rule without scope takes the failure module's glob; with neither, it is refused", () => {
    const bare = rule("rules/04.md", "# Bare\n\n## Mandatory rules\n\n1. Do it.\n")
    const withModule = renderEvolution(bare, [failure], "05")
    expect("problem" in withModule ? [] : withModule.scope).toEqual(["src/db/migrations/**"])
    expect(renderEvolution(bare, [{ ...failure, module: undefined }], "05")).toMatchObject({ problem: expect.stringContaining("non-empty scope") })
  })
})

describe("frontmatter edits keep the body byte for byte (property)", () => {
  it("for any body and any caused/superseded_by edit", async () => {
    const fc = await import("fast-check")
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 400 }),
        fc.constantFrom("\n", "\r\n"),
        fc.stringMatching(/^[a-z][a-z0-9-]{0,30}$/),
        (body, eol, id) => {
          const text = [`---`, `id: "07"`, `scope: ["src/**"]  # the billing code`, `---`, ""].join(eol) + body
          const after = editRuleFrontmatter(text, [{ op: "append", key: "caused", value: `failure/${id}` }, { op: "set", key: "superseded_by", value: "12" }])
          expect(after.endsWith(`${eol}---${eol}${body}`)).toBe(true)
          expect(after).toContain(`scope: ["src/**"]  # the billing code${eol}`)
          const parsed = parseRuleFile("rules/07.md", after)
          expect("rule" in parsed && parsed.rule.caused).toEqual([`failure/${id}`])
        }
      ),
      { numRuns: 300 }
    )
  })
})
