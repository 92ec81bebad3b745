import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import type { CreateRequest } from "../../../src/domain/Adapter.js"
import { claudeAdapter } from "../../../src/layers/adapters/claude/index.js"
import { makeOpenCodeAdapter, opencodeAdapter } from "../../../src/layers/adapters/opencode/index.js"
import { openCodeRules } from "../../../src/layers/adapters/opencode/rules.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const fixture = `${fixtures}opencode`

const probe = (tree: Tree): boolean => Effect.runSync(opencodeAdapter.probe(probeContextFromTree(tree)))
const agentFindings = (frontmatter: string) =>
  scanTree(opencodeAdapter, { "AGENTS.md": "# p\n", "agent/a.md": `---\n${frontmatter}\n---\nYou help.\n` }).diagnostics.map((d) => `${d.severity}:${d.code}`)

describe("opencode adapter: golden project", () => {
  const scan = scanDir(opencodeAdapter, fixture)

  it("indexes AGENTS.md, agents and commands in singular and plural directories, and skills; not opencode.json or docs", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      [".opencode/agent/docs-writer", "agent", "docs-writer"],
      [".opencode/agent/planner", "agent", "planner"],
      [".opencode/agents/review", "agent", "review"],
      [".opencode/command/test", "command", "test"],
      [".opencode/skills/db-migrations", "skill", "db-migrations"],
      [".opencode/skills/db-migrations/references/rollback", "reference", "Rolling back"],
      ["AGENTS", "instruction", "Inventory API"]
    ])
  })

  it("reports the agents' rule violations and the skill's unknown key", () => {
    expect(scan.diagnostics.map((d) => [d.path, d.line, d.severity, d.code])).toEqual([
      [".opencode/agent/docs-writer.md", 4, "warning", "invalid-model"],
      [".opencode/agent/docs-writer.md", 5, "warning", "invalid-temperature"],
      [".opencode/agent/planner.md", 1, "error", "missing-description"],
      [".opencode/agent/planner.md", 2, "error", "invalid-mode"],
      [".opencode/agent/planner.md", 3, "error", "invalid-tools"],
      [".opencode/skills/db-migrations/SKILL.md", 4, "warning", "unexpected-field"]
    ])
  })

  it("projects agents, commands and the instruction file", () => {
    const review = scan.items.find((i) => i.conceptId === ".opencode/agents/review")!.projection
    expect(review.description).toMatch(/^Reviews Go code/)
    expect(review.hints).toEqual(["subagent", "anthropic/claude-sonnet-4-5"])
    expect(review.extra).toEqual({ mode: "subagent", model: "anthropic/claude-sonnet-4-5", tools: { write: false, edit: false } })
    const test = scan.items.find((i) => i.conceptId === ".opencode/command/test")!.projection
    expect(test.extra).toEqual({ invocation: "/test", parameters: ["$ARGUMENTS", "$1"], agent: "build" })
    const agents = scan.items.find((i) => i.conceptId === "AGENTS")!.projection
    expect(agents.links).toEqual(["docs/migrations"])
    const skill = scan.items.find((i) => i.conceptId === ".opencode/skills/db-migrations")!.projection
    expect(skill.links).toEqual([".opencode/skills/db-migrations/references/rollback"])
  })

  it("scans deterministically (R-AD-2)", () => {
    expect(scanDir(opencodeAdapter, fixture)).toEqual(scan)
  })
})

describe("opencode adapter: probe", () => {
  it("picks opencode.json(c), or AGENTS.md with agent or command directories, or .opencode/ holding them", () => {
    expect(probe(treeFromDir(fixture, { includeHidden: true }))).toBe(true)
    expect(probe({ "opencode.jsonc": "{}" })).toBe(true)
    expect(probe({ "AGENTS.md": "# a", "command/x.md": "x" })).toBe(true)
    expect(probe({ "AGENTS.md": "# a", "agents/x.md": "x" })).toBe(true)
    expect(probe({ ".opencode/agent/x.md": "x" })).toBe(true)
  })

  it("does not pick AGENTS.md alone or the other adapters' roots", () => {
    expect(probe({ "AGENTS.md": "# a", "docs/x.md": "x" })).toBe(false)
    expect(probe(treeFromDir(`${fixtures}agent-skills`))).toBe(false)
    expect(probe(treeFromDir(`${fixtures}claude`, { includeHidden: true }))).toBe(false)
    expect(Effect.runSync(claudeAdapter.probe(probeContextFromTree(treeFromDir(fixture, { includeHidden: true }))))).toBe(false)
  })
})

describe("opencode adapter: agent rules", () => {
  it("a valid agent has no findings", () => {
    expect(agentFindings("description: d\nmode: all\nmodel: openai/gpt-5\ntemperature: 0.7\ntools:\n  bash: true\npermission:\n  edit: deny\n  bash:\n    \"git *\": allow")).toEqual([])
  })

  it("description is required; mode, tools and permission are checked", () => {
    expect(agentFindings("mode: subagent")).toEqual(["error:missing-description"])
    expect(agentFindings("description: d\nmode: background")).toEqual(["error:invalid-mode"])
    expect(agentFindings("description: d\ntools:\n  - bash")).toEqual(["error:invalid-tools"])
    expect(agentFindings("description: d\npermission:\n  edit: maybe")).toEqual(["warning:invalid-permission"])
  })

  it("model must be provider/id and temperature a number from 0 to 1", () => {
    expect(agentFindings("description: d\nmodel: sonnet")).toEqual(["warning:invalid-model"])
    expect(agentFindings("description: d\ntemperature: hot")).toEqual(["warning:invalid-temperature"])
    expect(agentFindings("description: d\ntemperature: -0.1")).toEqual(["warning:invalid-temperature"])
  })

  it("an agent without frontmatter misses its description", () => {
    expect(codes(scanTree(opencodeAdapter, { "AGENTS.md": "# p\n", "agents/a.md": "You help.\n" }).diagnostics)).toEqual(["missing-description"])
  })

  it("skills in singular and plural directories, at the root or under .opencode/", () => {
    const skill = (name: string) => `---\nname: ${name}\ndescription: Use when ${name}.\n---\n`
    const scan = scanTree(opencodeAdapter, { "AGENTS.md": "# p\n", "skill/a/SKILL.md": skill("a"), "skills/b/SKILL.md": skill("b"), ".opencode/skill/c/SKILL.md": skill("c") })
    expect(scan.items.filter((i) => i.projection.type === "skill").map((i) => i.conceptId)).toEqual([".opencode/skill/c", "skill/a", "skills/b"])
    expect(scan.diagnostics).toEqual([])
  })
})

describe("opencode adapter: authoring", () => {
  const tree: Tree = { "AGENTS.md": "# p\n", ".opencode/agent/review.md": "---\ndescription: d\n---\n" }
  const create = (request: CreateRequest, base: Tree = tree) => Effect.runSync(Effect.either(opencodeAdapter.create!(request, contextFromTree(base, { name: "oc" }))))

  it("writes an agent into the agent directory already in use", () => {
    const result = create({ type: "agent", title: "Planner", description: "Plans work. Use before coding.", body: "You plan.\n", fields: { mode: "subagent" } })
    expect(Either.getOrThrow(result)).toEqual([{ bundle: "oc", path: ".opencode/agent/planner.md", beforeHash: null, after: "---\ndescription: Plans work. Use before coding.\nmode: subagent\n---\n\nYou plan.\n" }])
  })

  it("defaults to plural directories under .opencode/, or at the root of a global config directory", () => {
    expect(Either.getOrThrow(create({ type: "command", title: "Test", description: "Run tests", body: "Run $ARGUMENTS" }))[0]!.path).toBe(".opencode/commands/test.md")
    expect(Either.getOrThrow(create({ type: "command", title: "Test", description: "Run tests", body: "x" }, { "opencode.json": "{}" }))[0]!.path).toBe("commands/test.md")
    expect(Either.getOrThrow(create({ type: "skill", title: "Deploy", description: "Deploy. Use when shipping.", body: "x" }))[0]!.path).toBe(".opencode/skills/deploy/SKILL.md")
  })

  it("refuses an invalid agent, an existing file and other types", () => {
    const bad = create({ type: "agent", title: "x", description: "d", body: "b", fields: { mode: "boss" } })
    expect(Either.isLeft(bad) && bad.left.reason).toContain("invalid-mode")
    expect(Either.isLeft(create({ type: "agent", title: "x", body: "b" }))).toBe(true)
    expect(Either.isLeft(create({ type: "agent", conceptId: ".opencode/agent/review", title: "x", description: "d", body: "b" }))).toBe(true)
    expect(Either.isLeft(create({ type: "instruction", title: "AGENTS", body: "b" }))).toBe(true)
  })

  it("the authoring context is deterministic", () => {
    const context = () => Effect.runSync(opencodeAdapter.authoringContext!({ name: "oc", root: "/r", writable: true }, "agent", "create"))
    expect(context()).toEqual(context())
    expect(context().instructions).toContain("`invalid-mode` (error)")
  })
})

describe("opencode adapter: R-AD-3", () => {
  const tree: Tree = { "AGENTS.md": "# p\n", "agent/a.md": "---\ndescription: d\nmode: background\n---\n" }
  const instructions = (rules: typeof openCodeRules) => Effect.runSync(makeOpenCodeAdapter(rules).authoringContext!({ name: "oc", root: "/r", writable: true }, "agent", "create")).instructions

  it("the modes and the severity of invalid-mode come from the table, for the validator and the instructions alike", () => {
    const widened = openCodeRules.map((r) => (r.code === "invalid-mode" ? { ...r, terms: [...(r.terms ?? []), "background"] } : r))
    expect(codes(scanTree(makeOpenCodeAdapter(openCodeRules), tree).diagnostics)).toEqual(["invalid-mode"])
    expect(codes(scanTree(makeOpenCodeAdapter(widened), tree).diagnostics)).toEqual([])
    expect(instructions(widened)).toContain("`background`")
    const removed = openCodeRules.filter((r) => r.code !== "invalid-mode")
    expect(codes(scanTree(makeOpenCodeAdapter(removed), tree).diagnostics)).toEqual([])
    expect(instructions(removed)).not.toContain("`invalid-mode`")
  })
})
