import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import type { CreateRequest } from "../../../src/domain/Adapter.js"
import { claudeAdapter, makeClaudeAdapter } from "../../../src/layers/adapters/claude/index.js"
import { claudeRules } from "../../../src/layers/adapters/claude/rules.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const project = `${fixtures}claude`
const plugin = `${fixtures}claude-plugin`

const probe = (tree: Tree): boolean => Effect.runSync(claudeAdapter.probe(probeContextFromTree(tree)))
const agent = (frontmatter: string): Tree => ({ "CLAUDE.md": "# p\n", "agents/a.md": `---\n${frontmatter}\n---\nYou help.\n` })

describe("claude adapter: golden .claude project", () => {
  const scan = scanDir(claudeAdapter, project)

  it("indexes CLAUDE.md, rules, commands, subagents and skills; never settings or other files", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      [".claude/agents/db-helper", "agent", "db-helper"],
      [".claude/agents/docs-writer", "agent", "docs-writer"],
      [".claude/agents/reviewer", "agent", "reviewer"],
      [".claude/commands/deploy", "command", "deploy"],
      [".claude/commands/git/commit", "command", "commit"],
      [".claude/rules/money", "instruction", "Money"],
      [".claude/rules/testing", "instruction", "Testing"],
      [".claude/skills/changelog", "skill", "changelog"],
      [".claude/skills/changelog/references/format", "reference", "Keep a Changelog format"],
      ["CLAUDE", "instruction", "Billing service"]
    ])
    expect(scan.items.flatMap((i) => i.files).filter((f) => f.includes("settings") || f === "README.md" || f.startsWith("docs/"))).toEqual([])
  })

  it("a subagent without description is an error, an unknown key a warning; a host-only skill key warns", () => {
    expect(scan.diagnostics.map((d) => [d.path, d.line, d.severity, d.code])).toEqual([
      [".claude/agents/db-helper.md", 1, "error", "missing-description"],
      [".claude/agents/docs-writer.md", 4, "warning", "unknown-agent-field"],
      [".claude/skills/changelog/SKILL.md", 6, "warning", "unexpected-field"]
    ])
    expect(scan.diagnostics[1]!.message).toContain("did you mean `tools`?")
  })

  it("CLAUDE.md's @path imports are links; an email address is not an import", () => {
    const claude = scan.items.find((i) => i.conceptId === "CLAUDE")!.projection
    expect(claude.links).toEqual(["README", "docs/conventions"])
    expect(claude.outline?.map((h) => h.text)).toEqual(["Billing service", "Commands", "Conventions"])
    expect(claude.description).toBe("A TypeScript service that turns usage events into invoices.")
  })

  it("a rule's paths globs are hints; a rule's relative link resolves from its directory", () => {
    const testing = scan.items.find((i) => i.conceptId === ".claude/rules/testing")!.projection
    expect(testing.hints).toEqual(["test/**/*.ts", "src/**/*.test.ts", "Testing"])
    expect(testing.extra).toEqual({ paths: ["test/**/*.ts", "src/**/*.test.ts"] })
    expect(scan.items.find((i) => i.conceptId === ".claude/rules/money")!.projection.links).toEqual(["docs/conventions"])
  })

  it("a command's $ARGUMENTS and $1… are its parameters", () => {
    const deploy = scan.items.find((i) => i.conceptId === ".claude/commands/deploy")!.projection
    expect(deploy.description).toBe("Deploy the current branch to an environment")
    expect(deploy.hints).toEqual(["/deploy", "<environment> [version]", "$ARGUMENTS", "$1", "$2", "Bash(git status:*)", "Bash(make deploy:*)"])
    expect(deploy.extra).toEqual({
      invocation: "/deploy",
      parameters: ["$ARGUMENTS", "$1", "$2"],
      argumentHint: "<environment> [version]",
      allowedTools: ["Bash(git status:*)", "Bash(make deploy:*)"],
      model: "haiku"
    })
  })

  it("a subagent projects its tools and model; the body is its prompt", () => {
    const reviewer = scan.items.find((i) => i.conceptId === ".claude/agents/reviewer")!.projection
    expect(reviewer.description).toMatch(/^Reviews a diff/)
    expect(reviewer.extra).toEqual({ tools: ["Read", "Grep", "Glob"], model: "sonnet" })
    expect(reviewer.content).toContain("You are a careful reviewer")
  })

  it("a skill goes through the SKILL.md codec with Claude Code's keys allowed", () => {
    const skill = scan.items.find((i) => i.conceptId === ".claude/skills/changelog")!
    expect(skill.files).toEqual([".claude/skills/changelog/SKILL.md", ".claude/skills/changelog/references/format.md", ".claude/skills/changelog/scripts/unreleased.sh"])
    expect(skill.projection.hints?.[0]).toBe("Use when a pull request changes behaviour users can see.")
    expect(skill.projection.links).toEqual([".claude/skills/changelog/references/format", ".claude/skills/changelog/scripts/unreleased.sh"])
    expect(scan.items.find((i) => i.conceptId === ".claude/skills/changelog/references/format")!.projection.links).toEqual([".claude/skills/changelog"])
  })

  it("scans deterministically (R-AD-2)", () => {
    expect(scanDir(claudeAdapter, project)).toEqual(scan)
  })
})

describe("claude adapter: golden plugin directory", () => {
  const scan = scanDir(claudeAdapter, plugin)

  it("indexes the plugin's command, subagent and skill at the root; the manifest and hooks are not items", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      ["agents/release-manager", "agent", "release-manager"],
      ["commands/release", "command", "release"],
      ["skills/semver", "skill", "semver"],
      ["skills/semver/references/rules", "reference", "Versioning rules"]
    ])
    expect(scan.diagnostics).toEqual([])
  })

  it("projects the plugin's items", () => {
    expect(scan.items.find((i) => i.conceptId === "commands/release")!.projection.extra).toMatchObject({ parameters: ["$ARGUMENTS", "$1"], argumentHint: "<version>" })
    expect(scan.items.find((i) => i.conceptId === "agents/release-manager")!.projection.extra).toEqual({ tools: ["Read", "Bash"], skills: ["semver"], model: "opus" })
    expect(scan.items.find((i) => i.conceptId === "skills/semver")!.projection.links).toEqual(["skills/semver/references/rules"])
  })

  it("scans deterministically (R-AD-2)", () => {
    expect(scanDir(claudeAdapter, plugin)).toEqual(scan)
  })
})

describe("claude adapter: probe", () => {
  it("picks a .claude project and a plugin directory", () => {
    expect(probe(treeFromDir(project, { includeHidden: true }))).toBe(true)
    expect(probe(treeFromDir(plugin, { includeHidden: true }))).toBe(true)
    expect(probe({ "CLAUDE.md": "# x", "commands/a.md": "x" })).toBe(true)
    expect(probe({ ".claude/agents/a.md": "x" })).toBe(true)
  })

  it("picks a bare ~/.claude directory by its settings.json, without CLAUDE.md", () => {
    expect(probe(treeFromDir(`${fixtures}claude-home`))).toBe(true)
    expect(probe({ "settings.json": "{}", "skills/a/SKILL.md": "x" })).toBe(true)
    expect(probe({ "settings.json": "[1]", "commands/a.md": "x" })).toBe(false)
    expect(probe({ "settings.json": "{ not json", "commands/a.md": "x" })).toBe(false)
    expect(probe({ "settings.json": "{}", "docs/a.md": "x" })).toBe(false)
  })

  it("indexes a bare ~/.claude directory's subagents, commands and skills, not its settings or state", () => {
    const home = scanDir(claudeAdapter, `${fixtures}claude-home`)
    expect(home.items.map((i) => [i.conceptId, i.projection.type])).toEqual([
      ["agents/reviewer", "agent"],
      ["commands/standup", "command"],
      ["skills/changelog", "skill"]
    ])
    expect(home.diagnostics).toEqual([])
  })

  it("needs both a marker and content", () => {
    expect(probe({ "CLAUDE.md": "# x", "docs/a.md": "x" })).toBe(false)
    expect(probe({ "commands/a.md": "x", "agents/b.md": "x" })).toBe(false)
    expect(probe(treeFromDir(`${fixtures}agent-skills`))).toBe(false)
    expect(probe(treeFromDir(`${fixtures}opencode`, { includeHidden: true }))).toBe(false)
  })
})

describe("claude adapter: subagent rules", () => {
  const found = (tree: Tree) => scanTree(claudeAdapter, tree).diagnostics.map((d) => `${d.severity}:${d.code}`)

  it("a valid subagent has no findings", () => {
    expect(found(agent("name: a\ndescription: Helps. Use when stuck.\ntools: Read\nmodel: claude-opus-4-1-20250805\nmaxTurns: 3\nmemory: project\nskills:\n  - pdf"))).toEqual([])
    expect(found(agent("name: a\ndescription: d\nmodel: sonnet[1m]"))).toEqual([])
  })

  it("name is required and lowercase-hyphenated", () => {
    expect(found(agent("description: d"))).toEqual(["error:missing-name"])
    expect(found(agent("name: Code_Reviewer\ndescription: d"))).toEqual(["error:invalid-name"])
  })

  it("a bad model is a warning; bad permissionMode, maxTurns or memory too", () => {
    expect(found(agent("name: a\ndescription: d\nmodel: gpt-4o"))).toEqual(["warning:invalid-model"])
    expect(found(agent("name: a\ndescription: d\npermissionMode: yolo\nmaxTurns: -1\nmemory: team"))).toEqual(["warning:invalid-agent-field", "warning:invalid-agent-field", "warning:invalid-agent-field"])
  })

  it("an agent file without frontmatter is an error; malformed frontmatter too, and it is still indexed", () => {
    expect(found({ "CLAUDE.md": "# p\n", "agents/a.md": "You help.\n" })).toEqual(["error:missing-frontmatter"])
    const scan = scanTree(claudeAdapter, { "CLAUDE.md": "# p\n", "agents/a.md": "---\nname: [a\n---\nYou help.\n" })
    expect(codes(scan.diagnostics)).toEqual(["invalid-frontmatter"])
    expect(scan.items.map((i) => i.conceptId)).toEqual(["CLAUDE", "agents/a"])
  })

  it("agents/ inside a skill are the skill's references, not subagents", () => {
    const scan = scanTree(claudeAdapter, {
      "CLAUDE.md": "# p\n",
      "skills/creator/SKILL.md": "---\nname: creator\ndescription: Use when creating.\n---\nSee [grader](agents/grader.md).\n",
      "skills/creator/agents/grader.md": "# Grader\n"
    })
    expect(scan.items.map((i) => [i.conceptId, i.projection.type])).toEqual([["CLAUDE", "instruction"], ["skills/creator", "skill"], ["skills/creator/agents/grader", "reference"]])
    expect(scan.diagnostics).toEqual([])
  })
})

describe("claude adapter: instructions, imports and the plugin manifest", () => {
  it("a missing @import is a dangling-link warning; @ in code and @mentions are not imports", () => {
    const scan = scanTree(claudeAdapter, {
      "CLAUDE.md": "# p\n\nSee @docs/gone.md and @notes.md.\nPing @alice; run `npx @scope/pkg.js`.\n\n```\n@docs/in-fence.md\n```\n",
      "notes.md": "n",
      "commands/a.md": "x"
    })
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([["dangling-link", "warning", 3]])
    expect(scan.items.find((i) => i.conceptId === "CLAUDE")!.projection.links).toEqual(["notes"])
  })

  it("a rule's paths must be globs", () => {
    const scan = scanTree(claudeAdapter, { "CLAUDE.md": "# p\n", "commands/a.md": "x", ".claude/rules/r.md": "---\npaths:\n  a: b\n---\n# R\n" })
    expect(codes(scan.diagnostics)).toEqual(["invalid-paths"])
  })

  it("a command's model is checked; a command needs no frontmatter", () => {
    expect(codes(scanTree(claudeAdapter, { "CLAUDE.md": "# p\n", "commands/a.md": "---\nmodel: llama\n---\nDo $ARGUMENTS\n" }).diagnostics)).toEqual(["invalid-model"])
    const plain = scanTree(claudeAdapter, { "CLAUDE.md": "# p\n", "commands/a.md": "Summarise the open pull requests.\n" })
    expect(plain.diagnostics).toEqual([])
    expect(plain.items.find((i) => i.conceptId === "commands/a")!.projection.description).toBe("Summarise the open pull requests.")
  })

  it("a broken plugin manifest is an error", () => {
    const lint = (manifest: string) => codes(scanTree(claudeAdapter, { ".claude-plugin/plugin.json": manifest, "commands/a.md": "x" }).diagnostics)
    expect(lint("{ not json")).toEqual(["invalid-plugin-manifest"])
    expect(lint("{\"description\": \"x\"}")).toEqual(["invalid-plugin-manifest"])
    expect(lint("{\"name\": \"Release Tools\"}")).toEqual(["invalid-plugin-manifest"])
    expect(lint("{\"name\": \"release-tools\"}")).toEqual([])
  })
})

describe("claude adapter: authoring", () => {
  const projectTree: Tree = { "CLAUDE.md": "# p\n", ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: d\n---\n" }
  const pluginTree: Tree = { ".claude-plugin/plugin.json": "{\"name\": \"p\"}", "commands/x.md": "x" }
  const create = (request: CreateRequest, tree: Tree = projectTree) => Effect.runSync(Effect.either(claudeAdapter.create!(request, contextFromTree(tree, { name: "cc" }))))

  it("creates a subagent under .claude/ in a project and at the root in a plugin", () => {
    const request: CreateRequest = { type: "agent", title: "Test Runner", description: "Runs the tests. Use after a change.", body: "You run tests.\n", fields: { tools: "Read, Bash", model: "haiku" } }
    expect(Either.getOrThrow(create(request))).toEqual([{
      bundle: "cc",
      path: ".claude/agents/test-runner.md",
      beforeHash: null,
      after: "---\nname: test-runner\ndescription: Runs the tests. Use after a change.\ntools: Read, Bash\nmodel: haiku\n---\n\nYou run tests.\n"
    }])
    expect(Either.getOrThrow(create(request, pluginTree))[0]!.path).toBe("agents/test-runner.md")
  })

  it("refuses a subagent without description, with a bad name, or that exists", () => {
    const noDescription = create({ type: "agent", title: "x", body: "b" })
    expect(Either.isLeft(noDescription) && noDescription.left.reason).toContain("missing-description")
    const badName = create({ type: "agent", conceptId: ".claude/agents/Bad_Name", title: "x", description: "d", body: "b" })
    expect(Either.isLeft(badName) && badName.left.reason).toContain("invalid-name")
    expect(Either.isLeft(create({ type: "agent", conceptId: ".claude/agents/reviewer", title: "x", description: "d", body: "b" }))).toBe(true)
  })

  it("creates commands and skills (Claude Code's skill keys allowed) and nothing else", () => {
    const command = Either.getOrThrow(create({ type: "command", title: "Ship It", description: "Ship a version", body: "Ship $ARGUMENTS\n", fields: { "argument-hint": "<version>" } }))
    expect(command[0]).toMatchObject({ path: ".claude/commands/ship-it.md", after: "---\ndescription: Ship a version\nargument-hint: <version>\n---\n\nShip $ARGUMENTS\n" })
    const skill = Either.getOrThrow(create({ type: "skill", title: "Lint", description: "Lint the code. Use before committing.", body: "Run the linter.\n", fields: { "disable-model-invocation": true } }))
    expect(skill[0]!.path).toBe(".claude/skills/lint/SKILL.md")
    expect(codes(scanTree(claudeAdapter, { ...projectTree, [skill[0]!.path]: String(skill[0]!.after) }).diagnostics)).toEqual([])
    expect(Either.isLeft(create({ type: "instruction", title: "CLAUDE", body: "x" }))).toBe(true)
    expect(Either.isLeft(create({ type: "agent", conceptId: "docs/a", title: "x", description: "d", body: "b" }))).toBe(true)
  })

  it("the authoring context comes from the rule table and is deterministic", () => {
    const context = () => Effect.runSync(claudeAdapter.authoringContext!({ name: "cc", root: "/r", writable: true }, "agent", "create"))
    expect(context()).toEqual(context())
    expect(context().instructions).toContain("`unknown-agent-field` (warning)")
    expect(context().instructions).toContain("`missing-description` (error)")
  })
})

describe("claude adapter: R-AD-3", () => {
  const tree = agent("name: a\ndescription: d\ntool: Read")
  const instructions = (rules: typeof claudeRules) => Effect.runSync(makeClaudeAdapter(rules).authoringContext!({ name: "cc", root: "/r", writable: true }, "agent", "create")).instructions

  it("removing the unknown-agent-field row stops both the warning and the instruction; the known keys come from the row", () => {
    const without = claudeRules.filter((r) => r.code !== "unknown-agent-field")
    expect(codes(scanTree(makeClaudeAdapter(claudeRules), tree).diagnostics)).toEqual(["unknown-agent-field"])
    expect(codes(scanTree(makeClaudeAdapter(without), tree).diagnostics)).toEqual([])
    expect(instructions(without)).not.toContain("unknown-agent-field")
    const tolerant = claudeRules.map((r) => (r.code === "unknown-agent-field" ? { ...r, terms: [...(r.terms ?? []), "tool"] } : r))
    expect(codes(scanTree(makeClaudeAdapter(tolerant), tree).diagnostics)).toEqual([])
    expect(instructions(tolerant)).toContain("`tool`")
  })

  it("raising missing-description to a warning changes the instruction and the finding", () => {
    const soft = claudeRules.map((r) => (r.code === "missing-description" ? { ...r, severity: "warning" as const } : r))
    expect(instructions(soft)).toContain("`missing-description` (warning)")
    expect(codes(scanTree(makeClaudeAdapter(soft), agent("name: a")).diagnostics, "warning")).toEqual(["missing-description"])
  })
})
