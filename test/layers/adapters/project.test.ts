import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import type { CreateRequest } from "../../../src/domain/Adapter.js"
import { makeBundleFiles } from "../../../src/layers/fs/BundleFilesNode.js"
import { makeProjectAdapter, projectAdapter, projectRules } from "../../../src/layers/adapters/project/index.js"
import { builtInRegistry, selectAdapter } from "../../../src/layers/adapters/registry.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const fixture = `${fixtures}project`
const probe = (tree: Tree): boolean => Effect.runSync(projectAdapter.probe(probeContextFromTree(tree)))

const temps: Array<string> = []
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true })
})

describe("project adapter: golden repository", () => {
  const scan = scanDir(projectAdapter, fixture)

  it("indexes routers, rules, docs, memory, context, skills, ledger records and the brief — never source code or .ai/*.json", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      [".ai/BRIEF", "brief", "Brief"],
      [".ai/ledger/decision/use-postgres-advisory-locks", "decision", "Serialise plan changes with advisory locks"],
      [".ai/ledger/failure/quota-lost-update-3f9a0c71e2b5", "failure", "Concurrent quota updates lose increments"],
      [".ai/ledger/question/who-owns-invoices", "question", "Who owns invoice rendering?"],
      [".ai/ledger/surprise/utc-billing-day", "surprise", "The billing day ends at midnight UTC, not local time"],
      [".cursor/rules/akm", "instruction", "akm"],
      [".github/copilot-instructions", "instruction", "copilot instructions"],
      ["AGENTS", "instruction", "Agent guide"],
      ["CLAUDE", "instruction", "Claude Code guide"],
      ["context/router-contract", "context", "Router contract"],
      ["docs/adr/0001-meter-in-process", "adr", "ADR 1: Meter usage in process"],
      ["docs/architecture", "document", "Architecture"],
      ["docs/business/invoicing", "business", "Invoicing"],
      ["memory/2026-08-26-ci-flake", "memory", "2026-08-26: CI flake in quota tests"],
      ["rules/04-quota-locking", "rule", "Lock the quota row"],
      ["rules/07-quota-idempotent-writes", "rule", "Retry quota writes idempotently"],
      ["rules/style", "rule", "Code style"],
      ["skills/deploy-service", "skill", "deploy-service"],
      ["skills/deploy-service/references/rollback", "reference", "Rollback"]
    ])
  })

  it("projects a ledger record: kind as type, the symptom as description, its fingerprint and module as hints", () => {
    const failure = scan.items.find((i) => i.conceptId === ".ai/ledger/failure/quota-lost-update-3f9a0c71e2b5")!.projection
    expect(failure.description).toBe("Usage totals are lower than the number of metered requests under load.")
    expect(failure.hints!.slice(0, 5)).toEqual(["failure/quota-lost-update-3f9a0c71e2b5", "quota-lost-update-3f9a0c71e2b5", "src/billing", "increment_quota", "LostUpdate"])
    expect(failure.extra).toEqual({ kind: "failure", id: "quota-lost-update-3f9a0c71e2b5", occurrences: 2, fingerprint: "quota-lost-update-3f9a0c71e2b5" })
    // The "## " line inside the fix's code fence does not split the record.
    expect(failure.outline!.map((h) => h.text)).toEqual(["Symptom", "Trigger", "Root cause", "Fix", "Module", "Operation", "Error class"])
  })

  it("projects a rule's frontmatter: id, scope and mandates as hints, supersession", () => {
    const rule = (id: string) => scan.items.find((i) => i.conceptId === id)!.projection
    expect(rule("rules/07-quota-idempotent-writes").hints!.slice(0, 3)).toEqual(["07", "src/billing/**", "retry idempotent writes"])
    expect(rule("rules/07-quota-idempotent-writes").extra).toEqual({ ruleId: "07", scope: ["src/billing/**"], supersedes: ["04"], caused: [], introducedBy: "failure/quota-lost-update-3f9a0c71e2b5" })
    expect(rule("rules/04-quota-locking").supersededBy).toBe("07")
    expect(rule("rules/style").extra).toEqual({ scope: [], supersedes: [], caused: [] })
  })

  it("reports a ledger record missing a required field and a rule with malformed frontmatter", () => {
    // The fixture's hand-made routers drift from its contract: router drift is covered in project-drift.test.ts.
    expect(scan.diagnostics.filter((d) => d.code !== "router-drift").map((d) => [d.code, d.severity, d.path, d.line, d.message])).toEqual([
      ["ledger-missing-field", "error", ".ai/ledger/decision/use-postgres-advisory-locks.md", 6, "a decision record needs `cost_accepted` (a '## Cost accepted' section or a frontmatter key)"],
      ["invalid-rule-frontmatter", "error", "rules/04-quota-locking.md", 5, "`mandates` must be a list of { must: true|false, subject: text }"]
    ])
  })

  it("is deterministic (R-AD-2)", () => {
    expect(scanDir(projectAdapter, fixture)).toEqual(scan)
  })

  it("is picked by the ordered selection through its .ai/ directory (R-AD-6)", () => {
    const tree = treeFromDir(fixture, { includeHidden: true })
    expect(probe(tree)).toBe(true)
    expect(Effect.runSync(selectAdapter(builtInRegistry, probeContextFromTree(tree))).id).toBe("project")
    expect(probe(treeFromDir(`${fixtures}akm`))).toBe(false)
  })

  it("rules/ + AGENTS.md (or CLAUDE.md) counts only at the root of a git repository", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "akm-project-"))
    temps.push(root)
    fs.mkdirSync(path.join(root, "rules"))
    fs.writeFileSync(path.join(root, "rules", "01-tests.md"), "# Tests first\n")
    fs.writeFileSync(path.join(root, "AGENTS.md"), "# Agents\n")
    const detect = () => Effect.runSync(selectAdapter(builtInRegistry, makeBundleFiles().probeContext(root))).id
    expect(Effect.runSync(projectAdapter.probe(makeBundleFiles().probeContext(root)))).toBe(false)
    fs.mkdirSync(path.join(root, ".git"))
    fs.writeFileSync(path.join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
    expect(Effect.runSync(projectAdapter.probe(makeBundleFiles().probeContext(root)))).toBe(true)
    expect(detect()).toBe("project")
    // A worktree's .git is a file.
    expect(probe({ "rules/a.md": "", "CLAUDE.md": "", ".git": "gitdir: /x" })).toBe(true)
    expect(probe({ "rules/a.md": "", ".git/HEAD": "" })).toBe(false)
  })
})

describe("project: ledger records", () => {
  const record = (kind: string, frontmatter: string, body: string) => ({ [`.ai/ledger/${kind}/r1.md`]: `---\n${frontmatter}---\n\n${body}` })

  it("every kind's required fields come from sections or frontmatter keys", () => {
    const surprise = record("surprise", "title: t\nwhy: by design\n", "## Behavior\n\nb\n\n## Misleading symptom\n\nm\n")
    expect(scanTree(projectAdapter, surprise).diagnostics).toEqual([])
    const empty = record("question", "title: t\n", "## Asked\n\n\n## Answer\n\na\n")
    expect(scanTree(projectAdapter, empty).diagnostics.map((d) => d.message)).toEqual([
      "a question record needs `answered_by` (a '## Answered by' section or a frontmatter key)",
      "a question record needs `asked` (a '## Asked' section or a frontmatter key)",
      "a question record needs `date` (a '## Date' section or a frontmatter key)"
    ])
  })

  it("checks title, kind and id against the path, and the shape of occurrences and sources", () => {
    const scan = scanTree(projectAdapter, record("drift", "kind: failure\nid: other\noccurrences: [2026-01-01]\nsources: x\n", "## Area\n\na\n\n## Before\n\nb\n\n## After\n\nc\n\n## Why\n\nw\n"))
    expect(scan.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ["ledger-missing-field", 1, "the record has no `title`"],
      ["invalid-ledger-record", 2, "kind 'failure' does not match the directory 'drift'"],
      ["invalid-ledger-record", 3, "id 'other' does not match the file name 'r1'"],
      ["invalid-ledger-record", 4, "`occurrences` must be a list of mappings, each with a `date`"],
      ["invalid-ledger-record", 5, "`sources` must be a list"]
    ])
  })

  it("an unknown kind only needs a title (R-AD-9); a record without frontmatter is invalid", () => {
    expect(scanTree(projectAdapter, record("idea", "title: t\n", "text\n")).diagnostics).toEqual([])
    expect(codes(scanTree(projectAdapter, { ".ai/ledger/idea/x.md": "# x\n" }).diagnostics)).toEqual(["invalid-ledger-record", "ledger-missing-field"])
  })

  it("a malformed record is invalid-frontmatter, still indexed, with no missing-field noise", () => {
    const scan = scanTree(projectAdapter, record("failure", "title: [x\n", "## Symptom\n\ns\n"))
    expect(codes(scan.diagnostics)).toEqual(["invalid-frontmatter"])
    expect(scan.items).toHaveLength(1)
  })
})

describe("project: rule frontmatter", () => {
  const rule = (frontmatter: string) => scanTree(projectAdapter, { "rules/r.md": `---\n${frontmatter}---\n\n# R\n` }).diagnostics.map((d) => d.message)

  it("accepts every documented field and plain rules", () => {
    expect(rule("id: \"12\"\nintroduced_by: failure/x\nsupersedes: [\"04\", \"05\"]\nsuperseded_by: \"13\"\ncaused: [failure/y]\nscope: [\"src/**\"]\nmandates:\n  - { must: false, subject: never block the event loop }\nrevisit_when: { pathMissing: \"src/legacy/**\" }\n")).toEqual([])
    expect(scanTree(projectAdapter, { "rules/plain.md": "# Plain\n\nText.\n" }).diagnostics).toEqual([])
  })

  it("reports each malformed field with its line", () => {
    expect(rule("id: [1]\nscope: [\"\"]\nmandates: [{ must: yes, subject: x }]\nrevisit_when: { date: soon }\ncaused: {a: 1}\n")).toEqual([
      "`id` must be a string such as \"07\"",
      "`scope` must be a list of path globs such as src/billing/**",
      "`mandates` must be a list of { must: true|false, subject: text }",
      "`revisit_when` must be { date: YYYY-MM-DD } or { pathMissing: <glob> }",
      "`caused` must be a list of refs such as failure/<id>"
    ])
  })
})

describe("project: one rule table (R-AD-3)", () => {
  const tree = { "rules/r.md": "---\nscope: 5\n---\n" }
  const context = (adapter: typeof projectAdapter) => Effect.runSync(adapter.authoringContext!({ name: "p", root: "/", writable: true }, "rule", "create"))

  it("removing a row stops enforcing and teaching it; changing severity changes both", () => {
    const without = makeProjectAdapter(projectRules.filter((r) => r.code !== "invalid-rule-frontmatter"))
    expect(codes(scanTree(projectAdapter, tree).diagnostics)).toEqual(["invalid-rule-frontmatter"])
    expect(codes(scanTree(without, tree).diagnostics)).toEqual([])
    expect(context(without).instructions).not.toContain("invalid-rule-frontmatter")
    const softer = makeProjectAdapter(projectRules.map((r) => (r.code === "invalid-rule-frontmatter" ? { ...r, severity: "warning" as const } : r)))
    expect(scanTree(softer, tree).diagnostics.map((d) => d.severity)).toEqual(["warning"])
    expect(context(softer).instructions).toContain("`invalid-rule-frontmatter` (warning)")
    expect(context(softer).ruleHash).not.toBe(context(projectAdapter).ruleHash)
    expect(context(makeProjectAdapter(projectRules)).ruleHash).toBe(context(projectAdapter).ruleHash)
  })
})

describe("project: authoring", () => {
  const tree = { "rules/existing.md": "# E\n", "AGENTS.md": "# A\n" }
  const create = (request: CreateRequest) => Effect.runSync(Effect.either(projectAdapter.create!(request, contextFromTree(tree, { name: "repo" }))))
  const after = (request: CreateRequest) => {
    const [change] = Either.getOrThrow(create(request))
    return [change!.path, change!.after]
  }

  it("writes rules with valid frontmatter, documents in their directories and skills through the codec", () => {
    expect(after({ type: "rule", title: "No sleeps in tests", body: "Use fake timers.", fields: { id: "09", scope: ["test/**"] } })).toEqual([
      "rules/no-sleeps-in-tests.md",
      "---\nid: \"09\"\nscope:\n  - test/**\n---\n\n# No sleeps in tests\n\nUse fake timers.\n"
    ])
    expect(after({ type: "rule", title: "Plain", body: "Text." })).toEqual(["rules/plain.md", "# Plain\n\nText.\n"])
    expect(after({ type: "adr", title: "Use queues", body: "We use queues." })[0]).toBe("docs/adr/use-queues.md")
    expect(after({ type: "business", title: "Refunds", description: "Refund limits", body: "30 days." })).toEqual(["docs/business/refunds.md", "---\ndescription: Refund limits\n---\n\n# Refunds\n\n30 days.\n"])
    expect(after({ type: "skill", title: "Deploy", conceptId: "deploy", description: "Deploys the service. Use when a change must go out.", body: "# Deploy\n" })[0]).toBe("skills/deploy/SKILL.md")
  })

  it("writes a ledger record with one section per field that passes the ledger checks", () => {
    const [p, text] = after({
      type: "surprise",
      title: "Cache keys are case-sensitive",
      conceptId: "cache-key-case",
      body: "",
      fields: { behavior: "Two entries for one user", misleading_symptom: "Random misses", why: "Keys are not lowercased" }
    })
    expect(p).toBe(".ai/ledger/surprise/cache-key-case.md")
    expect(text).toBe("---\nkind: surprise\nid: cache-key-case\ntitle: Cache keys are case-sensitive\n---\n\n## Behavior\n\nTwo entries for one user\n\n## Misleading symptom\n\nRandom misses\n\n## Why\n\nKeys are not lowercased\n")
    expect(scanTree(projectAdapter, { [p as string]: text as string }).diagnostics).toEqual([])
  })

  it("refuses generated files, incomplete records, invalid rule frontmatter and existing targets", () => {
    const reason = (request: CreateRequest) => {
      const result = create(request)
      return Either.isLeft(result) ? result.left.reason : "created"
    }
    expect(reason({ type: "instruction", title: "AGENTS", body: "" })).toBe("akm does not author 'instruction' items in a project")
    expect(reason({ type: "failure", title: "x", body: "", fields: { symptom: "s" } })).toBe("a failure record needs trigger, root_cause, fix, module, operation, error_class")
    expect(reason({ type: "rule", title: "x", body: "", fields: { mandates: "be nice" } })).toMatch(/^the rule frontmatter would be invalid/)
    expect(reason({ type: "rule", title: "Existing", body: "" })).toBe("rules/existing already exists")
  })
})
