import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { FileUnreadable, type CreateRequest } from "../../../src/domain/Adapter.js"
import { akmAdapter, akmRules, makeAkmAdapter } from "../../../src/layers/adapters/akm/index.js"
import { isPlaceholderBody } from "../../../src/layers/adapters/akm/placeholder.js"
import { readScriptHeader } from "../../../src/layers/adapters/akm/scriptHeader.js"
import { builtInRegistry, selectAdapter } from "../../../src/layers/adapters/registry.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const fixture = `${fixtures}akm`
const CANARY = "CANARY_7e3b1f9d0c_DO_NOT_INDEX"
const probe = (tree: Tree): boolean => Effect.runSync(akmAdapter.probe(probeContextFromTree(tree)))
const md = (frontmatter: string, body = "# T\n\nText.\n") => `---\n${frontmatter}---\n\n${body}`

describe("akm adapter: golden working bundle (all fourteen type directories)", () => {
  const scan = scanDir(akmAdapter, fixture)

  it("maps every type directory to its type; markdown outside them is knowledge", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      ["README", "knowledge", "Team working bundle"],
      ["agents/code-reviewer", "agent", "Code reviewer"],
      ["commands/review-pr", "command", "Review a pull request"],
      ["env/api", "env", "api"],
      ["facts/api-rate-limit", "fact", "API rate limit"],
      ["instructions/writing-style", "instruction", "Writing style"],
      ["knowledge/http-caching", "knowledge", "HTTP caching at the gateway"],
      ["knowledge/infra/staging-environment", "knowledge", "Staging environment"],
      ["lessons/flaky-tests-retry", "lesson", "Do not retry flaky tests"],
      ["memories/old-staging-host", "memory", "Staging was one host"],
      ["memories/staging-db-allowlist", "memory", "Staging DB needs an allow-listed runner IP"],
      ["scripts/bump-version.sh", "script", "bump-version.sh"],
      ["secrets/github-token", "secret", "github-token"],
      ["sessions/2026-03-02-staging-outage", "session", "Session: staging outage"],
      ["skills/release-notes", "skill", "release-notes"],
      ["skills/release-notes/references/changelog-style", "reference", "Changelog style"],
      ["tasks/nightly-report", "task", "nightly report"],
      ["workflows/release", "workflow", "Release"]
    ])
  })

  it("a skill is its directory, with every file of it; its markdown files are items of their own", () => {
    const skill = scan.items.find((i) => i.conceptId === "skills/release-notes")!
    expect(skill.files).toEqual(["skills/release-notes/SKILL.md", "skills/release-notes/references/changelog-style.md", "skills/release-notes/scripts/collect.sh"])
    expect(skill.projection.tags).toEqual(["changelog", "release"])
    expect(skill.projection.links).toEqual(["skills/release-notes/references/changelog-style", "skills/release-notes/scripts/collect.sh", "workflows/release"])
  })

  it("folds akm's frontmatter into the projection: aliases, hints, quality, belief state, supersession, scope, expiry", () => {
    const item = (id: string) => scan.items.find((i) => i.conceptId === id)!.projection
    expect(item("knowledge/http-caching")).toMatchObject({
      tags: ["api-gateway", "caching", "cdn caching", "http"],
      aliases: ["cdn caching"],
      links: ["knowledge/infra/staging-environment"]
    })
    expect(item("knowledge/http-caching").hints!.slice(0, 2)).toEqual(["cache-control", "stale-while-revalidate"])
    expect(item("commands/review-pr").hints![0]).toBe("what to look at first (tests, naming, security)")
    expect(item("agents/code-reviewer").quality).toBe("curated")
    expect(item("knowledge/infra/staging-environment").scope).toEqual({ env: "staging" })
    expect(item("facts/api-rate-limit").staleAfter).toBe("2026-12-31")
    expect(item("memories/old-staging-host")).toMatchObject({ beliefState: "superseded", supersededBy: "memories/staging-db-allowlist", links: ["memories/staging-db-allowlist"] })
    // A short `<type>/<name>` ref links the item's directory form.
    expect(item("memories/staging-db-allowlist")).toMatchObject({
      links: ["facts/api-rate-limit", "knowledge/infra/staging-environment"],
      extra: { xrefs: ["knowledge/infra/staging-environment", "fact/api-rate-limit"], observedAt: "2026-03-02", captureMode: "agent" }
    })
  })

  it("scripts describe themselves in leading comments; the code is not indexed", () => {
    expect(scan.items.find((i) => i.conceptId === "scripts/bump-version.sh")!.projection).toEqual({
      name: "bump-version.sh",
      type: "script",
      description: "Bump the package version and create the release commit",
      tags: ["release", "versioning"],
      hints: ["bump-version.sh <major|minor|patch>"]
    })
  })

  it("env items carry key names (public descriptions only), secrets their file name; .sensitive hides env/prod", () => {
    expect(scan.items.find((i) => i.conceptId === "env/api")!.projection).toMatchObject({
      description: "Settings for calling the internal API from scripts",
      hints: ["API_BASE_URL", "API_TOKEN", "NODE_OPTIONS"],
      extra: { keys: [{ name: "API_BASE_URL", description: "Base URL of the internal API" }, { name: "API_TOKEN" }, { name: "NODE_OPTIONS" }] }
    })
    expect(scan.items.find((i) => i.conceptId === "secrets/github-token")!.projection).toEqual({ name: "github-token", type: "secret" })
    expect(scan.items.some((i) => i.conceptId === "env/prod")).toBe(false)
  })

  it("the secret canary reaches no projection and no diagnostic (R-RT-7)", () => {
    const text = JSON.stringify(scan)
    expect(text).not.toContain(CANARY)
    expect(text).not.toContain("api.internal.example")
    expect(text).not.toContain("on-call token")
  })

  it("tasks and workflows are projected by their own modules", () => {
    expect(scan.items.find((i) => i.conceptId === "tasks/nightly-report")!.projection.extra).toEqual({ schedule: "0 6 * * 1-5", target: "workflow", enabled: false })
    expect(scan.items.find((i) => i.conceptId === "workflows/release")!.projection.hints!.slice(0, 5)).toEqual(["check", "notes", "tag", "version", "the version to release, e.g. 1.4.0"])
  })

  it("the only finding of the golden bundle is its dangerous env key", () => {
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.path, d.line])).toEqual([["dangerous-env-key", "warning", "env/api.env", 7]])
  })

  it("is deterministic (R-AD-2)", () => {
    expect(scanDir(akmAdapter, fixture)).toEqual(scan)
  })

  it("is picked by the ordered selection, and its probe stays false elsewhere (R-AD-6)", () => {
    expect(probe(treeFromDir(fixture))).toBe(true)
    expect(Effect.runSync(selectAdapter(builtInRegistry, probeContextFromTree(treeFromDir(fixture)))).id).toBe("akm")
    expect(probe({ ".stash": "" })).toBe(true)
    expect(probe({ "memories/a.md": "", "facts/b.md": "" })).toBe(true)
    expect(probe({ "memories/a.md": "", "notes/b.md": "" })).toBe(false)
    expect(probe(treeFromDir(`${fixtures}llm-wiki`))).toBe(false)
  })
})

describe("akm: rules", () => {
  it("missing-description for items, scripts without @description, not for sessions", () => {
    const scan = scanTree(akmAdapter, {
      "memories/a.md": "# A\n\nText.\n",
      "scripts/run.py": "print('hi')\n",
      "sessions/s.md": "# S\n\nTranscript.\n"
    })
    expect(scan.diagnostics.map((d) => [d.code, d.path])).toEqual([["missing-description", "memories/a.md"], ["missing-description", "scripts/run.py"]])
  })

  it("placeholder-stub: a body of headings and TODO markers only", () => {
    const scan = scanTree(akmAdapter, { "knowledge/a.md": md("description: d\n", "# A\n\nTODO: write this\n- [ ] TBD\n"), "knowledge/b.md": md("description: d\n", "# B\n\nTODO: more, but this line is real content.\nReal text.\n") })
    expect(scan.diagnostics.map((d) => [d.code, d.path, d.line])).toEqual([["placeholder-stub", "knowledge/a.md", 4]])
    expect(isPlaceholderBody("")).toBe(false)
    expect(isPlaceholderBody("## Notes\n\n<!-- TODO -->\n")).toBe(true)
  })

  it("missing-skill-md for a skills/ directory without SKILL.md; its files are not items", () => {
    const scan = scanTree(akmAdapter, { "skills/broken/notes.md": "# N\n", "skills/loose.md": md("description: d\n") })
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([["missing-skill-md", "warning", "skills/broken"]])
    expect(scan.items.map((i) => [i.conceptId, i.projection.type])).toEqual([["skills/loose", "knowledge"]])
  })

  it("SKILL.md gets the Agent Skills checks, while akm's own frontmatter keys are welcome", () => {
    const scan = scanTree(akmAdapter, {
      "skills/Bad_Name/SKILL.md": md("name: Bad_Name\ndescription: Does things. Use when needed.\ntags: [x]\nbeliefState: active\n"),
      "skills/long/SKILL.md": md(`name: long\ndescription: ${"x".repeat(1100)}\n`)
    })
    expect(new Set(codes(scan.diagnostics, "error"))).toEqual(new Set(["invalid-name", "description-too-long"]))
    expect(codes(scan.diagnostics)).not.toContain("unexpected-field")
  })

  it("invalid-workflow-structure gathers every workflow finding under one code", () => {
    const scan = scanTree(akmAdapter, { "workflows/w.md": md("description: d\nparams: {a: {}}\nsteps: [one, two]\n", "# W\n\n## one\n\nx\n\n### gate\n\n## three\n\ny\n") })
    expect(scan.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ["invalid-workflow-structure", 3, "param 'a' has no type; give it `type:` (string, number, integer, boolean, path, ref, list, enum)"],
      ["invalid-workflow-structure", 4, "step 'two' has no '## two' section"],
      ["invalid-workflow-structure", 13, "the gate of step 'one' is empty; say what must be true (or which check command must pass) before the workflow continues"],
      ["invalid-workflow-structure", 15, "section '## three' is not a declared step; add it to `steps` or make it a ### subsection"]
    ])
  })

  it("invalid-task-yaml gathers every task finding, schedule included; dangerous keys keep their code", () => {
    const scan = scanTree(akmAdapter, { "tasks/t.yml": "version: 2\nschedule: '0 0 * * 9'\ncommand: x\nenv: [NODE_OPTIONS]\n" })
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([["invalid-task-yaml", "error", 2], ["dangerous-env-key", "warning", 4]])
  })

  it("invalid-field-value for unknown quality and belief states and unreadable dates", () => {
    const scan = scanTree(akmAdapter, { "facts/f.md": md("description: d\nquality: great\nbeliefState: maybe\nexpires: someday\n") })
    expect(scan.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ["invalid-field-value", 3, "`quality` is 'great'; expected curated, generated, proposed"],
      ["invalid-field-value", 4, "`beliefState` is 'maybe'; expected asserted, active, deprecated, superseded, contradicted, archived"],
      ["invalid-field-value", 5, "`expires` is 'someday'; expected an ISO date"]
    ])
    expect(scan.items[0]!.projection.quality).toBeUndefined()
  })

  it("broken-ref for xrefs and supersededBy: full ids, short type/name refs, fragments, other bundles", () => {
    const scan = scanTree(akmAdapter, {
      "facts/a.md": md("description: d\n", "# A\n\n## Limits\n\nx\n"),
      "memories/m.md": md("description: d\nsupersededBy: memory/gone\nxrefs: [facts/a, fact/a#limits, fact/a#nope, knowledge/missing, other//anything, ../bad]\n")
    }, { name: "work" })
    expect(scan.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ["broken-ref", 3, "`supersededBy` 'memory/gone' names no item of this bundle"],
      ["broken-ref", 4, "`xrefs` '../bad' is not a ref: segment '..' is not allowed"],
      ["broken-ref", 4, "`xrefs` 'fact/a#nope': facts/a has no section #nope"],
      ["broken-ref", 4, "`xrefs` 'knowledge/missing' names no item of this bundle"]
    ])
    expect(codes(scanTree(akmAdapter, { "facts/a.md": md("description: d\nxrefs: [work//facts/a]\n") }, { name: "work" }).diagnostics)).toEqual([])
  })

  it("dangling-link for a relative body link to nothing", () => {
    const scan = scanTree(akmAdapter, { "knowledge/a.md": md("description: d\n", "# A\n\n[b](b.md) [gone](gone.md) [dir](../scripts) [web](https://x.example)\n"), "knowledge/b.md": md("description: d\n"), "scripts/x.sh": "# @description x\n" })
    expect(scan.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([["dangling-link", 7, "gone.md points at knowledge/gone.md, which does not exist"]])
    expect(scan.items[0]!.projection.links).toEqual(["knowledge/b", "scripts"])
  })

  it("a malformed frontmatter block is an error; the item is still indexed from what can be salvaged", () => {
    const scan = scanTree(akmAdapter, { "memories/m.md": "---\ndescription: [unclosed\n---\n\n# Salvaged title\n\nBody text.\n" })
    expect(scan.diagnostics.map((d) => [d.code, d.line])).toEqual([["invalid-frontmatter", 2]])
    expect(scan.items[0]!.projection).toMatchObject({ type: "memory", name: "Salvaged title", content: "Salvaged title\nBody text." })
  })

  it("a path that cannot be a ref is reported, not indexed", () => {
    const scan = scanTree(akmAdapter, { "knowledge/c#.md": md("description: d\n") })
    expect(scan.items).toEqual([])
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([["invalid-concept-id", "error", "knowledge/c#.md"]])
  })

  it("a binary script is still an item, by name", () => {
    const ctx = contextFromTree({ "scripts/tool.bin": "x" })
    const binary = { ...ctx, readText: () => Effect.fail({ _tag: "FileUnreadable", path: "scripts/tool.bin", code: "binary", message: "binary" } as never) }
    const result = Effect.runSync(akmAdapter.project({ conceptId: "scripts/tool.bin", files: ["scripts/tool.bin"], kind: "script" }, binary))
    expect(result.projection).toEqual({ name: "tool.bin", type: "script" })
  })

  it("reads script headers in every common comment style", () => {
    expect(readScriptHeader("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# @description Rotate logs\n# @tags ops, logs\nimport os\n# @description not header\n")).toEqual({ description: "Rotate logs", tags: ["ops", "logs"], hints: [], text: "" })
    expect(readScriptHeader("/**\n * @description Build the site\n * @usage node build.mjs\n */\nexport {}\n")).toEqual({ description: "Build the site", tags: [], hints: ["node build.mjs"], text: "" })
    expect(readScriptHeader("-- Nightly vacuum of the events table\nVACUUM events;\n").description).toBe("Nightly vacuum of the events table")
    expect(readScriptHeader("echo hi\n")).toEqual({ tags: [], hints: [], text: "" })
  })
})

describe("akm: one rule table (R-AD-3)", () => {
  const tree = { "lessons/l.md": md("description: d\n", "# L\n\nTODO\n") }
  const context = (adapter: typeof akmAdapter, target = "lesson") => Effect.runSync(adapter.authoringContext!({ name: "w", root: "/", writable: true }, target, "create"))

  it("removing a row stops enforcing and teaching it; changing severity changes both and the hash", () => {
    const without = makeAkmAdapter(akmRules.filter((r) => r.code !== "placeholder-stub"))
    expect(codes(scanTree(akmAdapter, tree).diagnostics)).toEqual(["placeholder-stub"])
    expect(codes(scanTree(without, tree).diagnostics)).toEqual([])
    expect(context(akmAdapter).instructions).toContain("`placeholder-stub` (warning)")
    expect(context(without).instructions).not.toContain("placeholder-stub")
    const stricter = makeAkmAdapter(akmRules.map((r) => (r.code === "placeholder-stub" ? { ...r, severity: "error" as const } : r)))
    expect(scanTree(stricter, tree).diagnostics.map((d) => d.severity)).toEqual(["error"])
    expect(context(stricter).instructions).toContain("`placeholder-stub` (error)")
    expect(context(stricter).ruleHash).not.toBe(context(akmAdapter).ruleHash)
    expect(context(makeAkmAdapter(akmRules)).ruleHash).toBe(context(akmAdapter).ruleHash)
  })

  it("the skill rows come from the same table", () => {
    const without = makeAkmAdapter(akmRules.filter((r) => r.code !== "invalid-name"))
    const skill = { "skills/Bad_Name/SKILL.md": md("name: Bad_Name\ndescription: d. Use when x.\n") }
    expect(codes(scanTree(akmAdapter, skill).diagnostics)).toContain("invalid-name")
    expect(codes(scanTree(without, skill).diagnostics)).not.toContain("invalid-name")
  })

  it("the authoring context names the target type's paths and an example", () => {
    const memory = context(akmAdapter, "remember")
    expect(memory.allowedPaths).toEqual(["memories/**/*.md"])
    expect(memory.examples[0]).toContain("beliefState: active")
    expect(context(akmAdapter, "secret").allowedPaths).toEqual([])
    expect(context(akmAdapter, "anything").allowedPaths).toContain("skills/*/SKILL.md")
  })
})

describe("akm: authoring", () => {
  const tree = { "memories/taken.md": "", "skills/pdf/SKILL.md": md("name: pdf\ndescription: d. Use when x.\n") }
  const create = (request: CreateRequest) => Effect.runSync(Effect.either(akmAdapter.create!(request, contextFromTree(tree, { name: "work" }))))
  const written = (request: CreateRequest): [string, string] => {
    const [change] = Either.getOrThrow(create(request))
    expect(change!.beforeHash).toBeNull()
    expect(change!.bundle).toBe("work")
    return [change!.path, change!.after as string]
  }
  const reason = (request: CreateRequest) => {
    const result = create(request)
    return Either.isLeft(result) ? result.left.reason : "created"
  }

  it("remember writes a memory; import writes knowledge; the default is knowledge", () => {
    expect(written({ type: "remember", title: "Staging needs VPN", description: "Staging is only reachable over the VPN", body: "Connect first.", fields: { tags: ["staging"], beliefState: "active", scope_env: "staging" } })).toEqual([
      "memories/staging-needs-vpn.md",
      "---\ndescription: Staging is only reachable over the VPN\ntags:\n  - staging\nbeliefState: active\nscope_env: staging\n---\n\n# Staging needs VPN\n\nConnect first.\n"
    ])
    expect(written({ type: "import", title: "HTTP guide", conceptId: "web/http", body: "# HTTP guide\n\nText.\n" })[0]).toBe("knowledge/web/http.md")
    expect(written({ title: "Loose", body: "x" })[0]).toBe("knowledge/loose.md")
  })

  it("create works for every type; each written file scans without errors", () => {
    const requests: ReadonlyArray<CreateRequest> = [
      { type: "skill", title: "Charts", conceptId: "charts", description: "Draws charts from CSV files. Use when a chart is needed.", body: "# Charts\n" },
      { type: "command", title: "Deploy", description: "d", body: "Deploy $ARGUMENTS." },
      { type: "agent", title: "Planner", description: "d", body: "Plan." },
      { type: "knowledge", title: "K", description: "d", body: "k" },
      { type: "instruction", title: "I", description: "d", body: "i" },
      { type: "workflow", title: "Ship", description: "d", body: "", fields: { steps: ["build", "ship"] } },
      { type: "script", title: "Clean", conceptId: "clean.py", description: "Remove build output", body: "import shutil\n", fields: { tags: ["build"] } },
      { type: "memory", title: "M", description: "d", body: "m" },
      { type: "lesson", title: "L", description: "d", body: "l" },
      { type: "fact", title: "F", description: "d", body: "f" },
      { type: "env", title: "Billing", description: "Billing API settings", body: "BILLING_URL\nBILLING_TOKEN=\n" },
      { type: "task", title: "Nightly", description: "d", body: "", fields: { schedule: "@daily", workflow: "workflows/ship" } },
      { type: "session", title: "S", body: "s" }
    ]
    const files: Record<string, string> = {}
    for (const request of requests) {
      const [path, after] = written(request)
      files[path] = after
    }
    expect(Object.keys(files)).toEqual([
      "skills/charts/SKILL.md", "commands/deploy.md", "agents/planner.md", "knowledge/k.md", "instructions/i.md", "workflows/ship.md",
      "scripts/clean.py", "memories/m.md", "lessons/l.md", "facts/f.md", "env/billing.env", "tasks/nightly.yml", "sessions/s.md"
    ])
    expect(files["scripts/clean.py"]).toBe("# @description Remove build output\n# @tags build\nimport shutil\n")
    expect(files["env/billing.env"]).toBe("# akm:public Billing API settings\n\nBILLING_URL=\nBILLING_TOKEN=\n")
    expect(codes(scanTree(akmAdapter, files).diagnostics, "error")).toEqual([])
  })

  it("refuses secrets, env values, unknown types, invalid tasks and workflows, existing targets", () => {
    expect(reason({ type: "secret", title: "token", body: "abc" })).toBe("secrets are never written through a proposal")
    expect(reason({ type: "env", title: "e", body: "TOKEN=abc123" })).toBe("env files are created with key names only")
    expect(reason({ type: "gizmo", title: "g", body: "" })).toBe("'gizmo' is not an akm type")
    expect(reason({ type: "task", title: "t", body: "", fields: { schedule: "@sometimes", command: "x" } })).toMatch(/^the task would be invalid: schedule '@sometimes': unknown macro/)
    expect(reason({ type: "workflow", title: "w", body: "", fields: { params: { a: {} } } })).toMatch(/^the workflow would be invalid: param 'a' has no type/)
    expect(reason({ type: "memory", title: "Taken", body: "" })).toBe("memories/taken already exists")
    expect(reason({ type: "skill", title: "PDF", conceptId: "pdf", description: "d", body: "" })).toBe("skills/pdf already exists")
    expect(reason({ type: "skill", title: "Bad", conceptId: "Bad_Name", description: "d. Use when x.", body: "" })).toMatch(/^the new SKILL.md would not be valid/)
  })

  it("writes a reference inside an existing skill", () => {
    expect(written({ type: "reference", title: "Forms", conceptId: "skills/pdf/references/forms", body: "Fill forms." })).toEqual(["skills/pdf/references/forms.md", "# Forms\n\nFill forms.\n"])
  })
})

describe("akm: broken-ref lines kept in the lint projection (issue 13 item 3)", () => {
  it("reports the lines a read of the file would give, without reading it", () => {
    const tree: Tree = {
      "facts/a.md": md("description: d\n"),
      "memories/m.md": md("description: d\nsupersededBy: memory/gone\nxrefs: [facts/a, knowledge/missing]\n"),
      "memories/plain.md": md("description: d\n"),
      "skills/s/SKILL.md": "---\nname: s\ndescription: A skill.\nxrefs:\n  - knowledge/nothing\n---\n\n# S\n\nText.\n"
    }
    const ctx = contextFromTree(tree, { name: "work" })
    const projected = akmAdapter.plan(ctx.files, ctx.bundle).items.map((plan) => ({ plan, result: Effect.runSync(akmAdapter.project(plan, ctx)) }))
    expect(Object.fromEntries(projected.map(({ plan, result }) => [plan.conceptId, result.lintLines]))).toEqual({
      "facts/a": undefined,
      "memories/m": { supersededBy: 3, xrefs: 4 },
      "memories/plain": undefined,
      "skills/s": { xrefs: 4 }
    })
    const lint = (context: typeof ctx, keep: boolean) =>
      Effect.runSync(akmAdapter.lintBundle!(context, projected.map(({ plan, result }) => ({
        plan,
        projection: keep && result.lintLines !== undefined ? { ...result.projection, keyLines: result.lintLines } : result.projection
      })))).map((d) => [d.path, d.line, d.message])
    const noReads = { ...ctx, readText: (p: string) => Effect.fail(new FileUnreadable(p, "unreadable", `${p} must not be read`)) }
    const read = lint(ctx, false)
    expect(read).toEqual([
      ["memories/m.md", 4, "`xrefs` 'knowledge/missing' names no item of this bundle"],
      ["memories/m.md", 3, "`supersededBy` 'memory/gone' names no item of this bundle"],
      ["skills/s/SKILL.md", 4, "`xrefs` 'knowledge/nothing' names no item of this bundle"]
    ])
    expect(lint(noReads, true)).toEqual(read)
  })
})
