import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import type { CreateRequest } from "../../../src/domain/Adapter.js"
import { agentSkillsAdapter } from "../../../src/layers/adapters/agent-skills/index.js"
import { claudeAdapter } from "../../../src/layers/adapters/claude/index.js"
import { opencodeAdapter } from "../../../src/layers/adapters/opencode/index.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const fixture = `${fixtures}agent-skills`

const probe = (tree: Tree): boolean => Effect.runSync(agentSkillsAdapter.probe(probeContextFromTree(tree)))

describe("agent-skills adapter: golden bundle", () => {
  const scan = scanDir(agentSkillsAdapter, fixture)

  it("indexes each skill directory and every markdown file inside it, and nothing else", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      ["pdf-forms", "skill", "pdf-forms"],
      ["pdf-forms/references/fields", "reference", "Field reference"],
      ["pdf-forms/references/forms", "reference", "Forms checklist"],
      ["release-notes", "skill", "release-notes"],
      ["release-notes/assets/template", "reference", "Release {{version}}"],
      ["release-notes/references/style", "reference", "Release notes style"],
      ["sql-review", "skill", "sql-review"],
      ["sql-review/reference/checklist", "reference", "Migration checklist"]
    ])
  })

  it("a skill is its directory: SKILL.md first, then every file of the skill", () => {
    const pdf = scan.items.find((i) => i.conceptId === "pdf-forms")!
    expect(pdf.files).toEqual(["pdf-forms/SKILL.md", "pdf-forms/references/fields.md", "pdf-forms/references/forms.md", "pdf-forms/scripts/fill_form.py"])
  })

  it("projects the frontmatter, the body, the files in the outline and links to its references", () => {
    const pdf = scan.items.find((i) => i.conceptId === "pdf-forms")!.projection
    expect(pdf.description).toMatch(/^Fill in and inspect PDF forms/)
    expect(pdf.content).toContain("Checkboxes take /Yes or /Off")
    expect(pdf.content).not.toContain("platform-team")
    expect(pdf.outline).toEqual([
      { depth: 1, text: "PDF forms", slug: "pdf-forms" },
      { depth: 2, text: "Inspect a form", slug: "inspect-a-form" },
      { depth: 2, text: "Fill a form", slug: "fill-a-form" },
      { depth: 0, text: "references/fields.md", slug: "references-fields-md" },
      { depth: 0, text: "references/forms.md", slug: "references-forms-md" },
      { depth: 0, text: "scripts/fill_form.py", slug: "scripts-fill-form-py" }
    ])
    expect(pdf.hints).toEqual(["Requires Python 3.10+ and pypdf", "PDF forms", "Inspect a form", "Fill a form", "references/fields.md", "references/forms.md", "scripts/fill_form.py"])
    expect(pdf.links).toEqual(["pdf-forms/references/fields", "pdf-forms/references/forms"])
    expect(pdf.extra).toEqual({
      skillFile: "pdf-forms/SKILL.md",
      license: "Apache-2.0",
      compatibility: "Requires Python 3.10+ and pypdf",
      metadata: { author: "platform-team", version: "1.2" },
      resources: [
        { path: "references/fields.md", kind: "reference" },
        { path: "references/forms.md", kind: "reference" },
        { path: "scripts/fill_form.py", kind: "file" }
      ]
    })
    const notes = scan.items.find((i) => i.conceptId === "release-notes")!.projection
    expect(notes.links).toEqual(["release-notes/assets/template", "release-notes/references/style", "release-notes/scripts/collect_commits.sh"])
    expect(notes.extra).toMatchObject({ allowedTools: "Bash(git log:*) Bash(git describe:*) Read" })
  })

  it("a reference document links to its skill and to what it links to", () => {
    const forms = scan.items.find((i) => i.conceptId === "pdf-forms/references/forms")!
    expect(forms.files).toEqual(["pdf-forms/references/forms.md"])
    expect(forms.projection.links).toEqual(["pdf-forms", "pdf-forms/references/fields"])
    expect(forms.projection.description).toBe("Before handing a filled form back:")
    expect(forms.projection.extra).toEqual({ skill: "pdf-forms" })
  })

  it("reports the directory without SKILL.md, the missing when-to-use clause and the dangling script, all as warnings", () => {
    expect(scan.diagnostics.map((d) => [d.path, d.line, d.severity, d.code])).toEqual([
      ["drafts", undefined, "warning", "missing-skill-md"],
      ["sql-review/SKILL.md", 3, "warning", "missing-when-to-use"],
      ["sql-review/SKILL.md", 11, "warning", "dangling-link"]
    ])
    expect(scan.diagnostics[2]!.message).toContain("scripts/explain.py")
  })

  it("scans deterministically (R-AD-2)", () => {
    expect(scanDir(agentSkillsAdapter, fixture)).toEqual(scan)
  })
})

describe("agent-skills adapter: probe", () => {
  it("picks a root with a child directory holding SKILL.md", () => {
    expect(probe(treeFromDir(fixture))).toBe(true)
    expect(probe({ "x/skill.md": "---\nname: x\n---\n" })).toBe(true)
  })

  it("does not pick Claude Code or OpenCode roots, or skills nested deeper", () => {
    expect(probe(treeFromDir(`${fixtures}claude`, { includeHidden: true }))).toBe(false)
    expect(probe(treeFromDir(`${fixtures}claude-plugin`, { includeHidden: true }))).toBe(false)
    expect(probe(treeFromDir(`${fixtures}opencode`, { includeHidden: true }))).toBe(false)
    expect(probe({ "README.md": "# x", "skills/pdf/SKILL.md": "---\nname: pdf\n---\n" })).toBe(false)
  })

  it("the other adapters do not pick an Agent Skills root", () => {
    const tree = probeContextFromTree(treeFromDir(fixture))
    expect(Effect.runSync(claudeAdapter.probe(tree))).toBe(false)
    expect(Effect.runSync(opencodeAdapter.probe(tree))).toBe(false)
  })
})

describe("agent-skills adapter: rules on small trees", () => {
  it("a SKILL.md named Bad_Name is an invalid-name error; the item is still indexed", () => {
    const scan = scanTree(agentSkillsAdapter, { "Bad_Name/SKILL.md": "---\nname: Bad_Name\ndescription: Use when testing.\n---\nBody\n" })
    expect(codes(scan.diagnostics, "error")).toEqual(["invalid-name", "invalid-name"])
    expect(scan.items.map((i) => i.conceptId)).toEqual(["Bad_Name"])
  })

  it("a 1,100-character description is a description-too-long error", () => {
    const scan = scanTree(agentSkillsAdapter, { "long/SKILL.md": `---\nname: long\ndescription: Use when ${"x".repeat(1091)}\n---\nBody\n` })
    expect(codes(scan.diagnostics)).toEqual(["description-too-long"])
  })

  it("a skill with Claude Code keys fails here (skills-ref rejects them) but not in a claude bundle", () => {
    const text = "---\nname: s\ndescription: Use when testing.\nmodel: sonnet\n---\nBody\n"
    expect(codes(scanTree(agentSkillsAdapter, { "s/SKILL.md": text }).diagnostics, "error")).toEqual(["unexpected-field"])
    expect(codes(scanTree(claudeAdapter, { "CLAUDE.md": "# p\n", "skills/s/SKILL.md": text }).diagnostics)).toEqual([])
  })

  it("malformed frontmatter is an error and the skill is still indexed with a salvaged projection", () => {
    const scan = scanTree(agentSkillsAdapter, { "broken/SKILL.md": "---\nname: [broken\n---\n# Broken skill\n\nStill searchable.\n" })
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([["invalid-frontmatter", "error", 2]])
    expect(scan.items[0]!.projection).toMatchObject({ type: "skill", name: "broken" })
    expect(scan.items[0]!.projection.content).toContain("Still searchable.")
  })

  it("root files and hidden directories are not skills; the lowercase skill.md is accepted", () => {
    const scan = scanTree(agentSkillsAdapter, { "README.md": "# r", "LICENSE": "x", "lower/skill.md": "---\nname: lower\ndescription: Use when lower.\n---\n" })
    expect(scan.items.map((i) => [i.conceptId, i.files[0]])).toEqual([["lower", "lower/skill.md"]])
    expect(scan.diagnostics).toEqual([])
  })
})

describe("agent-skills adapter: authoring", () => {
  const tree: Tree = { "pdf/SKILL.md": "---\nname: pdf\ndescription: Use when PDFs.\n---\n# PDF\n" }
  const ctx = contextFromTree(tree, { name: "skills" })
  const create = (request: CreateRequest, context = ctx) => Effect.runSync(Effect.either(agentSkillsAdapter.create!(request, context)))

  it("creates <name>/SKILL.md with valid frontmatter that scans clean", () => {
    const result = create({ title: "CSV Cleanup", description: "Clean CSV files. Use when a CSV has broken rows.", body: "# CSV cleanup\n\nSteps.\n", fields: { license: "MIT" } })
    expect(Either.isRight(result)).toBe(true)
    const [change] = Either.getOrThrow(result)
    expect(change).toEqual({
      bundle: "skills",
      path: "csv-cleanup/SKILL.md",
      beforeHash: null,
      after: "---\nname: csv-cleanup\ndescription: Clean CSV files. Use when a CSV has broken rows.\nlicense: MIT\n---\n\n# CSV cleanup\n\nSteps.\n"
    })
    const scan = scanTree(agentSkillsAdapter, { ...tree, [change!.path]: String(change!.after) })
    expect(scan.diagnostics).toEqual([])
  })

  it("refuses an invalid name with the same rules that scanning applies", () => {
    const result = create({ conceptId: "Bad_Name", title: "Bad", description: "Use when bad.", body: "x" })
    expect(Either.isLeft(result) && result.left.reason).toContain("invalid-name")
  })

  it("refuses a missing description, an unknown key, an existing skill and a read-only bundle", () => {
    expect(Either.isLeft(create({ title: "No description", body: "x" }))).toBe(true)
    expect(Either.isLeft(create({ title: "Extra", description: "Use when x.", body: "x", fields: { model: "sonnet" } }))).toBe(true)
    expect(Either.isLeft(create({ conceptId: "pdf", title: "PDF", description: "Use when PDFs.", body: "x" }))).toBe(true)
    expect(Either.isLeft(create({ title: "New", description: "Use when new.", body: "x" }, contextFromTree(tree, { writable: false })))).toBe(true)
  })

  it("creates a reference inside an existing skill, and refuses one for a missing skill or over SKILL.md", () => {
    const result = create({ type: "reference", conceptId: "pdf/references/forms", title: "Forms", description: "How forms work.", body: "Fields and values." })
    expect(Either.getOrThrow(result)).toEqual([{ bundle: "skills", path: "pdf/references/forms.md", beforeHash: null, after: "# Forms\n\nHow forms work.\n\nFields and values.\n" }])
    expect(Either.isLeft(create({ type: "reference", conceptId: "nope/references/x", title: "X", body: "x" }))).toBe(true)
    expect(Either.isLeft(create({ type: "reference", conceptId: "pdf/SKILL", title: "X", body: "x" }))).toBe(true)
  })

  it("the authoring context is deterministic and lists every rule", () => {
    const context = () => Effect.runSync(agentSkillsAdapter.authoringContext!({ name: "b", root: "/r", writable: true }, "skill", "create"))
    expect(context()).toEqual(context())
    expect(context().ruleHash).toMatch(/^[0-9a-f]{64}$/)
    for (const rule of agentSkillsAdapter.rules) expect(context().instructions).toContain(`\`${rule.code}\``)
  })
})
