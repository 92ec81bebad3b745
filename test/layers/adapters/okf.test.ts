import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import type { AdapterRule, CreateRequest, ProjectResult } from "../../../src/domain/Adapter.js"
import { parseFrontmatter } from "../../../src/layers/adapters/core/Frontmatter.js"
import { makeOkfAdapter, okfAdapter } from "../../../src/layers/adapters/okf/index.js"
import { okfRules } from "../../../src/layers/adapters/okf/rules.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixture = fileURLToPath(new URL("../../fixtures/adapters/okf", import.meta.url))
const genericFixture = fileURLToPath(new URL("../../fixtures/adapters/generic-files", import.meta.url))

const projectOne = (path: string, text: string, tree: Tree = {}): ProjectResult =>
  Effect.runSync(okfAdapter.project({ conceptId: path.replace(/\.md$/, ""), files: [path] }, contextFromTree({ ...tree, [path]: text })))

const probe = (tree: Tree): boolean => Effect.runSync(okfAdapter.probe(probeContextFromTree(tree)))

describe("okf adapter: golden bundle", () => {
  const scan = scanDir(okfAdapter, fixture)

  it("indexes every concept at any depth, hidden folders included, and nothing else", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name, i.projection.status])).toEqual([
      [".drafts/retry-budget", "Proposal", "Retry budget for the checkout API", "draft"],
      ["glossary", "knowledge", "Glossary", "stable"],
      ["notes/scratch", "knowledge", "scratch", "stable"],
      ["runbooks/checkout-latency", "Playbook", "Incident response: checkout latency", "stable"],
      ["runbooks/legacy-failover", "Playbook", "Legacy manual failover", "deprecated"],
      ["services/checkout-api", "API Endpoint", "Checkout API", "stable"],
      ["services/payments-gateway", "Service", "Payments gateway", "draft"]
    ])
    expect(scan.items.every((i) => i.files.length === 1 && i.files[0] === `${i.conceptId}.md`)).toBe(true)
  })

  it("projects description, tags, resource, links, lifecycle and provenance", () => {
    const api = scan.items.find((i) => i.conceptId === "services/checkout-api")!.projection
    expect(api.description).toBe("Public HTTP API that turns a cart into an order.")
    expect(api.tags).toEqual(["checkout", "orders", "public-api"])
    expect(api.links).toEqual(["glossary", "runbooks/checkout-latency", "services/payments-gateway"])
    expect(api.staleAfter).toBe("2026-11-01T00:00:00Z")
    expect(api.updated).toBe("2026-05-02T10:15:00Z")
    expect(api.hints).toEqual([
      "https://api.example.com/v2/checkout",
      "Checkout OpenAPI specification",
      "Checkout latency SLO",
      "Endpoints",
      "Idempotency",
      "Dependencies"
    ])
    expect(api.outline?.map((h) => h.slug)).toEqual(["endpoints", "idempotency", "dependencies"])
    expect(api.content).toContain("Clients send an Idempotency-Key header")
    expect(api.content).not.toContain("owner: team:storefront")
    expect(api.extra).toEqual({
      resource: "https://api.example.com/v2/checkout",
      sources: [
        { id: "openapi", resource: "https://api.example.com/v2/openapi.yaml", title: "Checkout OpenAPI specification", author: "team:storefront", last_modified: "2026-04-28T00:00:00Z" },
        { id: "slo-doc", resource: "/runbooks/checkout-latency.md", title: "Checkout latency SLO" }
      ],
      generated: { by: "reference_agent/gemini-2.5-pro", at: "2026-05-02T10:15:00Z" },
      verified: [
        { by: "human:mlopez", at: "2026-05-02T16:00:00Z" },
        { by: "process:contract-tests", at: "2026-05-03T02:00:00Z" }
      ],
      trust: "human-reviewed"
    })

    const gateway = scan.items.find((i) => i.conceptId === "services/payments-gateway")!.projection
    // A bare `verified` mapping is a one-element list (OKF §5.2).
    expect(gateway.extra).toMatchObject({ verified: [{ by: "process:pci-scan", at: "2026-05-01T03:00:00Z" }], trust: "machine-confirmed" })
    expect(gateway.links).toEqual(["services/checkout-api", "services/fraud-scoring"])
    expect(gateway.updated).toBe("2026-04-30T09:00:00+02:00")

    const legacy = scan.items.find((i) => i.conceptId === "runbooks/legacy-failover")!.projection
    expect(legacy.links).toEqual(["runbooks/checkout-latency"])
    const scratch = scan.items.find((i) => i.conceptId === "notes/scratch")!.projection
    expect(scratch.extra).toEqual({ trust: "unverified" })
  })

  it("reports the missing types, the bad source entry and the broken link, and nothing else", () => {
    expect(scan.diagnostics.map((d) => [d.path, d.line, d.severity, d.code])).toEqual([
      ["glossary.md", 1, "warning", "okf-nonconformant"],
      ["glossary.md", 1, "info", "missing-type"],
      ["notes/scratch.md", 1, "warning", "okf-nonconformant"],
      ["notes/scratch.md", 1, "info", "missing-type"],
      ["services/payments-gateway.md", 13, "warning", "invalid-provenance"],
      ["services/payments-gateway.md", 21, "warning", "dangling-link"]
    ])
    expect(codes(scan.diagnostics, "error")).toEqual([])
  })

  it("scans deterministically (R-AD-2)", () => {
    expect(scanDir(okfAdapter, fixture)).toEqual(scan)
  })

  it("the probe picks the golden bundle and not a generic folder (R-AD-6)", () => {
    expect(probe(treeFromDir(fixture, { includeHidden: true }))).toBe(true)
    expect(probe(treeFromDir(genericFixture))).toBe(false)
  })
})

describe("okf adapter: probe", () => {
  it("matches a root index.md", () => {
    expect(probe({ "index.md": "# Things\n" })).toBe(true)
  })
  it("matches a nested .md with a non-empty type", () => {
    expect(probe({ "a/b.md": "---\ntype: Metric\n---\n" })).toBe(true)
  })
  it("does not match markdown without a type, or an empty type", () => {
    expect(probe({ "README.md": "# Hello\n", "a.md": "---\ntitle: x\n---\n", "b.md": "---\ntype: ''\n---\n" })).toBe(false)
  })
})

describe("okf adapter: plan", () => {
  const plan = (paths: ReadonlyArray<string>) => okfAdapter.plan(contextFromTree(Object.fromEntries(paths.map((p) => [p, ""]))).files, contextFromTree({}).bundle)

  it("reserves index.md and log.md at every depth and ignores non-markdown files", () => {
    const result = plan(["index.md", "log.md", "a/index.md", "a/b/log.md", "a/b/c.md", "viz.html", "attesters/x.py", ".hidden/d.md", ".git/x.md", "logs.md"])
    expect(result.items.map((i) => i.conceptId)).toEqual([".hidden/d", "a/b/c", "logs"])
    expect(result.diagnostics).toEqual([])
  })

  it("reports a path that cannot be a concept id", () => {
    const result = plan(["notes/#1.md", "ok.md"])
    expect(result.items.map((i) => i.conceptId)).toEqual(["ok"])
    expect(codes(result.diagnostics)).toEqual(["invalid-concept-id"])
  })
})

describe("okf adapter: project", () => {
  it("a malformed frontmatter is an error with its line, and the concept is still indexed", () => {
    const result = projectOne("notes/broken-note.md", "---\ntype: Metric\ntitle: [unclosed\n---\n# Heading\n\nBody text survives.\n")
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([["invalid-frontmatter", "error", 3]])
    expect(result.projection).toMatchObject({ type: "knowledge", name: "broken note", status: "stable" })
    expect(result.projection.content).toContain("Body text survives.")
  })

  it("an unclosed frontmatter block is an error on line 1", () => {
    const result = projectOne("x.md", "---\ntype: Metric\n\nno closing fence\n")
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([["invalid-frontmatter", 1]])
  })

  it("an empty or non-string type is nonconformant and read as knowledge", () => {
    for (const text of ["---\ntype: ''\n---\n", "---\ntype: [a, b]\n---\n", "---\ntype:\n---\n"]) {
      const result = projectOne("x.md", text)
      expect(result.projection.type).toBe("knowledge")
      expect(codes(result.diagnostics)).toEqual(["okf-nonconformant", "missing-type"])
      expect(result.diagnostics[0]!.line).toBe(2)
    }
  })

  it("unknown types and unknown keys are fine (R-AD-9, OKF §11)", () => {
    const result = projectOne("x.md", "---\ntype: Quantum Widget\nflavour: strange\nnested: { a: 1 }\n---\nBody\n")
    expect(result.diagnostics).toEqual([])
    expect(result.projection.type).toBe("Quantum Widget")
  })

  it("reads provenance leniently and reports each malformed entry", () => {
    const text = [
      "---",
      "type: Metric",
      "status: archived",
      "stale_after: 2026-09-23",
      "generated: { at: 2026-01-01T00:00:00Z }",
      "verified:",
      "  - { by: human:ana }",
      "  - just a string",
      "sources:",
      "  - { id: a, title: No resource }",
      "  - { resource: https://x.example, last_modified: yesterday }",
      "timestamp: '2025-01-01T00:00:00+00:00'",
      "---",
      ""
    ].join("\n")
    const result = projectOne("x.md", text)
    expect(result.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ["invalid-provenance", 9, "sources[0] has no `resource` (required in every entry)"],
      ["invalid-provenance", 9, "sources[1].last_modified is not an ISO 8601 datetime with an offset"],
      ["invalid-provenance", 5, "`generated.by` is required (an actor such as `human:<id>` or `<producer>/<version>`)"],
      ["invalid-provenance", 6, "verified[0].at is missing or not an ISO 8601 datetime with an offset"],
      ["invalid-provenance", 6, "verified[1] should be a mapping `{ by, at }`"],
      ["invalid-provenance", 3, "`status` is \"archived\"; expected draft, stable or deprecated"],
      ["invalid-provenance", 4, "`stale_after` is not an ISO 8601 datetime with an offset"]
    ])
    // Kept verbatim; `updated` falls back to generated.at, then the v0.1 `timestamp`.
    expect(result.projection).toMatchObject({ status: "archived", staleAfter: "2026-09-23", updated: "2026-01-01T00:00:00Z" })
    expect(projectOne("y.md", "---\ntype: X\ntimestamp: '2025-01-01T00:00:00+00:00'\n---\n").projection.updated).toBe("2025-01-01T00:00:00+00:00")
    expect(projectOne("z.md", "---\ntype: X\nupdated: 2026-02-02\ngenerated: { by: a/b, at: 2026-01-01T00:00:00Z }\n---\n").projection.updated).toBe("2026-02-02")
  })

  it("an Attested Computation without a runtime is a warning", () => {
    expect(codes(projectOne("c.md", "---\ntype: Attested Computation\n---\n").diagnostics)).toEqual(["missing-runtime"])
    expect(projectOne("c.md", "---\ntype: Attested Computation\nruntime: bigquery\n---\n").diagnostics).toEqual([])
  })

  it("turns root-relative, relative and reference-style links to .md files into concept ids", () => {
    const body = [
      "---",
      "type: Reference",
      "---",
      "[root](/tables/orders.md) [rel](./sibling.md) [up](../metrics/revenue.md#definition) [ref][r]",
      "[space](my%20note.md) [web](https://example.com/a.md) [mail](mailto:a@b.c) [anchor](#top)",
      "[dir](../tables/) [listing](../tables/index.md) [script](../attesters/check.py)",
      "[escape](../../../outside.md)",
      "",
      "[r]: /glossary.md"
    ].join("\n")
    const result = projectOne("docs/guides/page.md", body)
    expect(result.projection.links).toEqual(["docs/guides/my note", "docs/guides/sibling", "docs/metrics/revenue", "glossary", "tables/orders"])
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([["dangling-link", 7]])
  })
})

describe("okf adapter: bundle lint", () => {
  const lint = (tree: Tree) => scanTree(okfAdapter, tree).diagnostics

  it("accepts the index and log shapes of the OKF spec, including a log with frontmatter", () => {
    const tree = {
      "index.md": "---\nokf_version: \"0.2\"\n---\n# Tables\n\n* [Orders](tables/orders.md) - One row per order.\n* [Bare](tables/orders.md)\n\n# Sub\n\n* [Subdirectory](tables/) - more\n",
      "log.md": "---\ntype: Log\ntitle: History\n---\n# Directory Update Log\n\n## 2026-05-22\n* **Update**: x\n\n## 2026-05-15\n* **Initialization**: y\n",
      "tables/orders.md": "---\ntype: BigQuery Table\n---\n"
    }
    expect(lint(tree)).toEqual([])
  })

  it("reports index entries that are not links, stray text, unsectioned entries and frontmatter", () => {
    const diagnostics = lint({
      "index.md": "---\nokf_version: \"0.2\"\ntitle: Root\n---\n* [Early](a.md) - before any heading\n\n# Section\n\n* plain text entry\n* [Orders](a.md) and more words\n",
      "sub/index.md": "---\ntitle: nope\n---\n# Sub\n",
      "a.md": "---\ntype: X\n---\n"
    })
    expect(diagnostics.map((d) => [d.path, d.line, d.code])).toEqual([
      ["index.md", 3, "invalid-index-format"],
      ["index.md", 5, "invalid-index-format"],
      ["index.md", 9, "invalid-index-format"],
      ["index.md", 10, "invalid-index-format"],
      ["sub/index.md", 1, "invalid-index-format"]
    ])
    expect(new Set(diagnostics.map((d) => d.severity))).toEqual(new Set(["warning"]))
  })

  it("notes an okf_version it does not know", () => {
    expect(lint({ "index.md": "---\nokf_version: \"9.1\"\n---\n# A\n" }).map((d) => [d.code, d.severity, d.line])).toEqual([["unknown-okf-version", "info", 2]])
  })

  it("reports log headings that are not dates or not newest first", () => {
    const diagnostics = lint({ "notes/log.md": "# Log\n\n## 2026-05-01\n\n## Yesterday\n\n## 2026-06-01\n\n## 2026-02-30\n" })
    expect(diagnostics.map((d) => [d.path, d.line, d.code])).toEqual([
      ["notes/log.md", 5, "invalid-log-format"],
      ["notes/log.md", 7, "invalid-log-format"],
      ["notes/log.md", 9, "invalid-log-format"]
    ])
  })

  it("a link to a missing concept is a warning, never an error (OKF §6.1)", () => {
    const diagnostics = lint({ "a.md": "---\ntype: X\n---\nSee [b](b.md), [c](/c.md) and [b again](./b.md).\n", "c.md": "---\ntype: X\n---\n" })
    expect(diagnostics.map((d) => [d.code, d.severity, d.line, d.message])).toEqual([
      ["dangling-link", "warning", 4, "link to ./b.md: b.md does not exist"],
      ["dangling-link", "warning", 4, "link to b.md: b.md does not exist"]
    ])
  })

  it("a bundle without index.md is fine", () => {
    expect(lint({ "a.md": "---\ntype: X\n---\n" })).toEqual([])
  })
})

describe("okf adapter: authoring", () => {
  const now = "2026-06-01T12:00:00+02:00"
  const request: CreateRequest = {
    type: "Playbook",
    conceptId: "runbooks/disk-full",
    title: "Disk full on a database host",
    description: "What to do when a database volume fills up.",
    body: "# Steps\n\n1. Find the largest tables.\n",
    fields: { now, akmVersion: "0.3.1", tags: ["oncall", "database"] }
  }
  const create = (req: CreateRequest, tree: Tree = {}, writable = true) =>
    Effect.runSync(Effect.either(okfAdapter.create!(req, contextFromTree(tree, { name: "ops", writable }))))

  it("writes a conformant concept with generated provenance and nothing akm-specific", () => {
    const result = create(request)
    expect(result).toEqual(Either.right([{
      bundle: "ops",
      path: "runbooks/disk-full.md",
      beforeHash: null,
      after: [
        "---",
        "type: Playbook",
        "title: Disk full on a database host",
        "description: What to do when a database volume fills up.",
        "tags:",
        "  - oncall",
        "  - database",
        "generated:",
        "  by: akm/0.3.1",
        "  at: 2026-06-01T12:00:00+02:00",
        "---",
        "",
        "# Steps",
        "",
        "1. Find the largest tables.",
        ""
      ].join("\n")
    }]))
    const after = Either.getOrThrow(result)[0]!.after as string
    expect(after).not.toMatch(/akm:|[0-9a-f]{8}-[0-9a-f]{4}-/)
    const scanned = scanTree(okfAdapter, { "runbooks/disk-full.md": after })
    expect(scanned.diagnostics).toEqual([])
    expect(scanned.items[0]!.projection).toMatchObject({ type: "Playbook", name: "Disk full on a database host", updated: now })
  })

  it("defaults the id from the title, the type to knowledge and the time to now", () => {
    const result = Either.getOrThrow(create({ title: "Retry Storms!", body: "Text" }))
    expect(result[0]!.path).toBe("retry-storms.md")
    const data = parseFrontmatter(result[0]!.after as string).data!
    expect(data.type).toBe("knowledge")
    expect(data.generated).toMatchObject({ by: "akm/0.1.0" })
    expect(Date.parse((data.generated as { at: string }).at)).not.toBeNaN()
  })

  it("refuses index and log at every depth, existing paths, read-only bundles and akm keys", () => {
    for (const conceptId of ["index", "log", "a/b/index", "deep/Log"]) {
      const result = create({ ...request, conceptId })
      expect(Either.isLeft(result) && result.left.reason).toContain("reserved")
    }
    expect(Either.isLeft(create(request, { "runbooks/disk-full.md": "x" }))).toBe(true)
    expect(Either.isLeft(create(request, {}, false))).toBe(true)
    expect(Either.isLeft(create({ ...request, fields: { now, "akm:id": "1" } }))).toBe(true)
    expect(Either.isLeft(create({ ...request, conceptId: "a/../b" }))).toBe(true)
  })

  it("gives identical authoring contexts for identical inputs (R-AD-2)", () => {
    const context = () => Effect.runSync(okfAdapter.authoringContext!({ name: "ops", root: "/x", writable: true }, "runbooks/disk-full", "create"))
    const first = context()
    expect(context()).toEqual(first)
    expect(first.ruleHash).toMatch(/^[0-9a-f]{64}$/)
    expect(first.allowedPaths).toEqual(["runbooks/disk-full.md"])
    for (const rule of okfRules) expect(first.instructions).toContain(rule.guidance)
    expect(first.constraints.join("\n")).toContain("Never name a concept `index` or `log`")
  })
})

describe("okf adapter: one rule table drives guidance and validation (R-AD-3)", () => {
  const tree = { "a.md": "Plain note linking [b](b.md)\n" }
  const bundle = { name: "kb", root: "/x", writable: true }
  const instructionsOf = (rules: ReadonlyArray<AdapterRule>) => Effect.runSync(makeOkfAdapter(rules).authoringContext!(bundle, "", "create"))

  it("removing a row stops both the check and the instruction", () => {
    const without = okfRules.filter((r) => r.code !== "dangling-link")
    expect(codes(scanTree(okfAdapter, tree).diagnostics)).toContain("dangling-link")
    expect(codes(scanTree(makeOkfAdapter(without), tree).diagnostics)).not.toContain("dangling-link")
    expect(instructionsOf(okfRules).instructions).toContain("dangling-link")
    expect(instructionsOf(without).instructions).not.toContain("dangling-link")
  })

  it("changing a row's severity changes what is enforced, what is said and the rule hash", () => {
    const stricter = okfRules.map((r) => (r.code === "okf-nonconformant" ? { ...r, severity: "error" as const } : r))
    const severity = (rules: ReadonlyArray<AdapterRule>) => scanTree(makeOkfAdapter(rules), tree).diagnostics.find((d) => d.code === "okf-nonconformant")!.severity
    expect(severity(okfRules)).toBe("warning")
    expect(severity(stricter)).toBe("error")
    expect(instructionsOf(stricter).instructions).not.toEqual(instructionsOf(okfRules).instructions)
    expect(instructionsOf(stricter).ruleHash).not.toEqual(instructionsOf(okfRules).ruleHash)
  })

  it("removing the reserved-name row lifts the refusal to author index", () => {
    const open = makeOkfAdapter(okfRules.filter((r) => r.code !== "reserved-name"))
    const attempt = (adapter: typeof okfAdapter) => Effect.runSync(Effect.either(adapter.create!({ conceptId: "notes/index", title: "Index", body: "x", fields: { now: "2026-01-01T00:00:00Z" } }, contextFromTree({}))))
    expect(Either.isLeft(attempt(okfAdapter))).toBe(true)
    expect(Either.isRight(attempt(open))).toBe(true)
  })
})
