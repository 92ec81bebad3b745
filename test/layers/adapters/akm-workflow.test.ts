import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import type { CreateRequest } from "../../../src/domain/Adapter.js"
import { akmWorkflowAdapter, makeAkmWorkflowAdapter } from "../../../src/layers/adapters/akm-workflow/index.js"
import { akmWorkflowRules } from "../../../src/layers/adapters/akm-workflow/rules.js"
import { builtInRegistry, selectAdapter } from "../../../src/layers/adapters/registry.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const fixture = `${fixtures}akm-workflow`
const probe = (tree: Tree): boolean => Effect.runSync(akmWorkflowAdapter.probe(probeContextFromTree(tree)))
const lint = (text: string) => scanTree(akmWorkflowAdapter, { "w.md": text }).diagnostics.map((d) => [d.code, d.line, d.message])

const workflow = (frontmatter: string, body: string) => `---\ntype: workflow\ndescription: d\n${frontmatter}---\n\n# W\n\n${body}`

describe("akm-workflow adapter: golden root", () => {
  const scan = scanDir(akmWorkflowAdapter, fixture)

  it("indexes workflows and the other markdown of the root", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      ["README", "knowledge", "Platform workflows"],
      ["ops/incident-response", "workflow", "Incident response"],
      ["release", "workflow", "Release"]
    ])
  })

  it("projects steps and typed params as hints, the sections as outline", () => {
    const release = scan.items.find((i) => i.conceptId === "release")!.projection
    expect(release.description).toBe("Cut a release from main once the checks pass")
    expect(release.tags).toEqual(["release"])
    expect(release.extra).toEqual({ steps: ["check", "notes", "tag"], params: ["version", "dry_run"] })
    expect(release.hints!.slice(0, 8)).toEqual(["check", "Verify main is green", "notes", "Draft the release notes", "tag", "version", "the version to release, e.g. 1.4.0", "dry_run"])
    expect(release.outline!.map((h) => `${h.depth}:${h.text}`)).toEqual(["1:Release", "2:check", "3:gate", "2:notes", "2:tag"])
    expect(release.links).toEqual(["ops/incident-response"])
  })

  it("reports the structure errors of the broken workflow, with lines", () => {
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.path, d.line])).toEqual([
      ["untyped-param", "error", "ops/incident-response.md", 4],
      ["empty-gate", "error", "ops/incident-response.md", 20],
      ["undeclared-step-section", "error", "ops/incident-response.md", 26]
    ])
  })

  it("is deterministic (R-AD-2)", () => {
    expect(scanDir(akmWorkflowAdapter, fixture)).toEqual(scan)
  })

  it("is picked by the ordered selection, and its probe stays false elsewhere (R-AD-6)", () => {
    expect(probe(treeFromDir(fixture))).toBe(true)
    expect(Effect.runSync(selectAdapter(builtInRegistry, probeContextFromTree(treeFromDir(fixture)))).id).toBe("akm-workflow")
    expect(probe(treeFromDir(`${fixtures}akm`))).toBe(false)
    expect(probe({ "ops/w.md": "---\ntype: workflow\n---\n" })).toBe(false)
    expect(probe({ "w.md": "---\ntype: knowledge\n---\n" })).toBe(false)
  })
})

describe("akm-workflow: structure checks", () => {
  it("a well-formed workflow is clean", () => {
    expect(lint(workflow("params:\n  n: integer\nsteps: [a, b]\n", "## a\n\nDo a.\n\n### gate\n\nA is done.\n\n## b\n\nDo b.\n"))).toEqual([])
  })

  it("every declared step needs a section, and every ## section a declared step", () => {
    expect(lint(workflow("steps: [a, b]\n", "## a\n\nx\n\n## c\n\ny\n"))).toEqual([
      ["missing-step-section", 4, "step 'b' has no '## b' section"],
      ["undeclared-step-section", 13, "section '## c' is not a declared step; add it to `steps` or make it a ### subsection"]
    ])
  })

  it("params need a known type; enums need values", () => {
    expect(lint(workflow("params:\n  a: {description: x}\n  b: banana\n  c: {type: enum}\n  d: {type: enum, values: [x]}\nsteps: [s]\n", "## s\n\nx\n")).map((d) => d[2])).toEqual([
      "enum param 'c' lists no `values`",
      "param 'a' has no type; give it `type:` (string, number, integer, boolean, path, ref, list, enum)",
      "param 'b' has type 'banana', which is not one of string, number, integer, boolean, path, ref, list, enum"
    ])
  })

  it("a gate must say something; a gate with only a code fence is not empty", () => {
    expect(codes(scanTree(akmWorkflowAdapter, { "w.md": workflow("steps: [a]\n", "## a\n\nx\n\n### gate\n\n") }).diagnostics)).toEqual(["empty-gate"])
    expect(codes(scanTree(akmWorkflowAdapter, { "w.md": workflow("steps: [a]\n", "## a\n\nx\n\n### gate\n\n#### details\n\nz\n") }).diagnostics)).toEqual([])
    expect(codes(scanTree(akmWorkflowAdapter, { "w.md": workflow("steps: [a]\n", "## a\n\n### gate\n\n```sh\nnpm test\n```\n") }).diagnostics)).toEqual([])
  })

  it("reports structure problems: no steps, duplicates, bad defaults and budget, two sections or gates", () => {
    expect(lint(workflow("", "text\n")).map((d) => d[2])).toEqual(["the frontmatter declares no `steps`; list the step ids in order"])
    expect(lint(workflow("steps: [a, a]\ndefaults: [1]\nbudget: {minutes: -1}\n", "## a\n\nx\n\n## a\n\ny\n\n### gate\n\nok\n\n### gate\n\nok\n")).map((d) => d[2])).toEqual([
      "step 'a' is declared twice",
      "`defaults` must be a mapping of parameter name to default value",
      "`budget` must be a mapping of limits (steps, minutes, tokens …) to positive numbers or durations",
      "step 'a' has more than one section"
    ])
    expect(lint(workflow("steps: [a]\n", "## a\n\n### gate\n\nok\n\n### gate\n\nok\n")).map((d) => d[2])).toEqual(["step 'a' has more than one ### gate"])
  })

  it("a ## heading inside a code fence is not a section", () => {
    expect(lint(workflow("steps: [a]\n", "## a\n\n```md\n## not-a-step\n```\n"))).toEqual([])
  })

  it("a malformed frontmatter block is invalid-frontmatter and the file is still indexed", () => {
    const scan = scanTree(akmWorkflowAdapter, { "w.md": "---\ntype: workflow\nsteps: [a\n---\n\n# Broken\n" })
    expect(codes(scan.diagnostics)).toEqual(["invalid-frontmatter"])
    expect(scan.items.map((i) => i.projection.name)).toEqual(["Broken"])
  })

  it("a workflow without a description is a warning", () => {
    expect(codes(scanTree(akmWorkflowAdapter, { "w.md": "---\ntype: workflow\nsteps: [a]\n---\n\n## a\n\nx\n" }).diagnostics, "warning")).toEqual(["missing-description"])
  })
})

describe("akm-workflow: one rule table (R-AD-3)", () => {
  const tree = { "w.md": workflow("steps: [a]\n", "## a\n\n### gate\n") }
  const context = (adapter: typeof akmWorkflowAdapter) => Effect.runSync(adapter.authoringContext!({ name: "t", root: "/", writable: true }, "w", "create"))

  it("removing a row stops enforcing and teaching it; changing severity changes both", () => {
    const without = makeAkmWorkflowAdapter(akmWorkflowRules.filter((r) => r.code !== "empty-gate"))
    expect(codes(scanTree(akmWorkflowAdapter, tree).diagnostics)).toEqual(["empty-gate"])
    expect(codes(scanTree(without, tree).diagnostics)).toEqual([])
    expect(context(without).instructions).not.toContain("empty-gate")
    const softer = makeAkmWorkflowAdapter(akmWorkflowRules.map((r) => (r.code === "empty-gate" ? { ...r, severity: "info" as const } : r)))
    expect(scanTree(softer, tree).diagnostics.map((d) => d.severity)).toEqual(["info"])
    expect(context(softer).instructions).toContain("`empty-gate` (info)")
    expect(context(softer).ruleHash).not.toBe(context(akmWorkflowAdapter).ruleHash)
  })
})

describe("akm-workflow: authoring", () => {
  const create = (request: CreateRequest, tree: Tree = {}) => Effect.runSync(Effect.either(akmWorkflowAdapter.create!(request, contextFromTree(tree, { name: "ops" }))))

  it("renders a skeleton with one section per declared step that passes its own checks", () => {
    const [change] = Either.getOrThrow(create({ title: "Rotate keys", description: "Rotate the signing keys", body: "", fields: { steps: ["generate", "deploy"], params: { env: { type: "string" } } } }))
    expect(change!.path).toBe("rotate-keys.md")
    expect(change!.after).toBe(
      "---\ntype: workflow\ndescription: Rotate the signing keys\nparams:\n  env:\n    type: string\nsteps:\n  - generate\n  - deploy\n---\n\n# Rotate keys\n\n## generate\n\nDescribe what the generate step does.\n\n## deploy\n\nDescribe what the deploy step does.\n"
    )
    expect(scanTree(akmWorkflowAdapter, { [change!.path]: change!.after as string }).diagnostics).toEqual([])
  })

  it("takes the steps from the body's ## sections when none are declared", () => {
    const [change] = Either.getOrThrow(create({ title: "Deploy", description: "d", body: "## build\n\nBuild it.\n\n## ship\n\nShip it.\n" }))
    expect(scanTree(akmWorkflowAdapter, { [change!.path]: change!.after as string }).items[0]!.projection.extra).toEqual({ steps: ["build", "ship"], params: [] })
  })

  it("refuses a workflow that would break its own rules, and an existing target", () => {
    const untyped = create({ title: "x", body: "", fields: { params: { a: {} } } })
    expect(Either.isLeft(untyped) && untyped.left.reason).toMatch(/param 'a' has no type/)
    const mismatch = create({ title: "x", body: "## one\n\nx\n", fields: { steps: ["two"] } })
    expect(Either.isLeft(mismatch)).toBe(true)
    const taken = create({ title: "Deploy", body: "" }, { "deploy.md": "" })
    expect(Either.isLeft(taken) && taken.left.reason).toBe("deploy already exists")
  })
})

describe("akm-workflow: runnable steps (spec 07 §2, issue 20)", () => {
  const steps = (yaml: string, sections = ["a"]) => workflow(`params:\n  dir: path\nsteps:\n${yaml}`, sections.map((s) => `## ${s}\n\nDo ${s}.\n`).join("\n"))
  const messages = (text: string) => lint(text).map((d) => `${d[0]}: ${d[2]}`)
  const exported = (text: string) => Effect.runSync(akmWorkflowAdapter.exports!(contextFromTree({ "w.md": text }, { name: "ops" })))

  it("silent: argv commands, shell strings with shell: true, prompts, gates with a check, known params", () => {
    expect(messages(steps("  - id: a\n    command: [node, -e, 'x', '{{dir}}']\n    cwd: '{{dir}}'\n    timeout: 30s\n    retries: 2\n"))).toEqual([])
    expect(messages(steps("  - id: a\n    command: 'echo {{dir}} | wc -c'\n    shell: true\n"))).toEqual([])
    expect(messages(steps("  - id: a\n    prompt: 'Review {{dir}}'\n    gate: {check: [test, -f, '{{dir}}/ok']}\n"))).toEqual([])
    expect(messages(steps("  - id: a\n    kind: gate\n"))).toEqual([])
  })

  it("fires: both command and prompt, a non-argv command, an unknown param, an unknown kind or field, bad timeout/retries/gate", () => {
    expect(messages(steps("  - id: a\n    command: [make]\n    prompt: do it\n"))).toEqual(["invalid-step: step 'a': has both `command` and `prompt`; a step does exactly one"])
    expect(messages(steps("  - id: a\n    command: make all\n"))).toEqual(["invalid-step: step 'a': `command` is a string; write it as an argv list such as [npm, test] (a string runs through a shell only with `shell: true`)"])
    expect(messages(steps("  - id: a\n    command: [make, 3]\n"))).toEqual(["invalid-step: step 'a': `command` must be a non-empty list of strings (argv), e.g. [npm, test]"])
    expect(messages(steps("  - id: a\n    command: [cp, '{{src}}', '{{dir}}']\n"))).toEqual(["unknown-param: step 'a': uses {{src}}, which is not a declared param; declare it under `params`"])
    expect(messages(steps("  - id: a\n    kind: teleport\n"))).toEqual(["invalid-step: step 'a': unknown step kind 'teleport'; use command, prompt, gate"])
    expect(messages(steps("  - id: a\n    comand: [make]\n"))[0]).toMatch(/^invalid-step: step 'a': unknown field `comand`/)
    expect([...messages(steps("  - id: a\n    command: [make]\n    timeout: soon\n    retries: -1\n"))].sort()).toEqual([
      "invalid-step: step 'a': `retries` is a whole number from 0 to 10",
      "invalid-step: step 'a': `timeout` is a positive number of seconds or a duration such as 30s, 5m or 1h30m"
    ])
    expect(messages(steps("  - id: a\n    gate: {check: 'test -f x'}\n"))).toEqual(["invalid-step: step 'a': `gate.check` must be a non-empty list of strings (argv), e.g. [test, -f, done]"])
    expect(messages(steps("  - id: a\n    command: [make]\n  - id: a\n    command: [make]\n"))).toEqual(["invalid-workflow-structure: step 'a' is declared twice"])
  })

  it("exports a clean workflow with its plan; a workflow with errors exports no plan", () => {
    const [clean] = exported(workflow("params:\n  dir: {type: path, default: out}\nsteps:\n  - id: a\n    command: [ls, '{{dir}}']\n  - b\nbudget: {steps: 5, minutes: 2}\n", "## a\n\nList it.\n\n## b\n\nLook at {{dir}}.\n\n### gate\n\nIt looks right.\n"))
    expect(clean!.kind).toBe("workflow")
    expect(clean!.requirements).toEqual({ params: ["dir"] })
    expect(clean!.plan).toEqual({
      steps: [
        { id: "a", kind: "command", command: ["ls", "{{dir}}"], retries: 0, gate: "none" },
        { id: "b", kind: "prompt", retries: 0, prompt: "Look at {{dir}}.", gate: "confirm", gateText: "It looks right." }
      ],
      params: [{ name: "dir", type: "path", default: "out" }],
      maxSteps: 5,
      timeoutMs: 120_000
    })
    const [broken] = exported(steps("  - id: a\n    command: make\n"))
    expect(broken!.plan).toBeUndefined()
  })

  it("is version 2: the step format changed", () => {
    expect(akmWorkflowAdapter.version).toBe("2")
  })
})
