import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import type { CreateRequest, ValidateContext } from "../../../src/domain/Adapter.js"
import { llmWikiAdapter, makeLlmWikiAdapter } from "../../../src/layers/adapters/llm-wiki/index.js"
import { llmWikiRules } from "../../../src/layers/adapters/llm-wiki/rules.js"
import { builtInRegistry, selectAdapter } from "../../../src/layers/adapters/registry.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const fixture = `${fixtures}llm-wiki`
const probe = (tree: Tree): boolean => Effect.runSync(llmWikiAdapter.probe(probeContextFromTree(tree)))
const bundle = { name: "wiki", root: "/", writable: true }

describe("llm-wiki adapter: golden root", () => {
  const scan = scanDir(llmWikiAdapter, fixture)

  it("indexes pages (type from pageKind), raw sources and the schema; index.md and log.md are reserved", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      ["pages/concepts/compute-optimal-training", "concept", "Compute-optimal training"],
      ["pages/concepts/scaling-laws", "concept", "Scaling laws"],
      ["pages/papers/kaplan-2020", "paper", "Kaplan 2020"],
      ["raw/articles/chinchilla-notes", "wiki-source", "chinchilla notes"],
      ["raw/articles/kaplan-2020", "wiki-source", "Scaling Laws for Neural Language Models (notes)"],
      ["raw/articles/moe-survey", "wiki-source", "moe survey"],
      ["schema", "wiki-schema", "Wiki schema"]
    ])
  })

  it("links = xrefs + [[wikilinks]] + body links + cited sources, resolved to concept ids", () => {
    const page = (id: string) => scan.items.find((i) => i.conceptId === id)!.projection
    expect(page("pages/concepts/scaling-laws").links).toEqual(["pages/concepts/compute-optimal-training", "pages/papers/kaplan-2020", "raw/articles/kaplan-2020"])
    expect(page("pages/concepts/scaling-laws").extra).toEqual({ sources: ["raw/articles/kaplan-2020.md"] })
    expect(page("pages/concepts/compute-optimal-training").links).toEqual(["pages/concepts/scaling-laws", "raw/articles/chinchilla-notes"])
    // A bare source name is looked up under raw/; a URL is external.
    expect(page("pages/papers/kaplan-2020").extra).toEqual({ sources: ["raw/articles/kaplan-2020.md"] })
  })

  it("reports broken xrefs and sources, missing descriptions and uncited raw files", () => {
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.path, d.line])).toEqual([
      ["broken-xref", "warning", "pages/concepts/compute-optimal-training.md", 5],
      ["broken-source", "error", "pages/concepts/compute-optimal-training.md", 6],
      ["missing-description", "warning", "pages/papers/kaplan-2020.md", 1],
      ["uncited-raw", "info", "raw/articles/moe-survey.md", undefined]
    ])
    expect(scan.diagnostics[0]!.message).toBe("xref 'pages/concepts/mixture-of-experts' names no file of the wiki")
    expect(scan.diagnostics[1]!.message).toBe("source 'raw/articles/missing-notes.md' does not exist under raw/")
  })

  it("is deterministic (R-AD-2) and couples on schema.md", () => {
    expect(scanDir(llmWikiAdapter, fixture)).toEqual(scan)
    expect(llmWikiAdapter.couplingFiles).toEqual(["schema.md"])
  })

  it("is picked by the ordered selection, and its probe stays false elsewhere (R-AD-6)", () => {
    expect(probe(treeFromDir(fixture))).toBe(true)
    expect(Effect.runSync(selectAdapter(builtInRegistry, probeContextFromTree(treeFromDir(fixture)))).id).toBe("llm-wiki")
    expect(probe(treeFromDir(`${fixtures}akm`))).toBe(false)
    expect(probe({ "schema.md": "# s" })).toBe(false)
    expect(probe({ "pages/a.md": "# a" })).toBe(false)
  })
})

describe("llm-wiki: rules", () => {
  const page = (frontmatter: string, body = "# P\n") => `---\ndescription: d\n${frontmatter}---\n\n${body}`

  it("wikilinks resolve by file name anywhere under pages/; an unknown one is a broken xref", () => {
    const tree = { "schema.md": "", "pages/a.md": page("", "See [[Topic B]] and [[Nowhere|label]].\n"), "pages/deep/topic-b.md": page("") }
    const scan = scanTree(llmWikiAdapter, tree)
    expect(scan.items.find((i) => i.conceptId === "pages/a")!.projection.links).toEqual(["pages/deep/topic-b"])
    expect(scan.diagnostics.map((d) => d.message)).toEqual(["wikilink 'Nowhere' names no file of the wiki"])
  })

  it("relative body links are checked; external links and anchors are not", () => {
    const tree = { "pages/a.md": page("", "[b](b.md) [gone](gone.md) [web](https://example.com) [here](#top)\n"), "pages/b.md": page("") }
    expect(scanTree(llmWikiAdapter, tree).diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([["broken-xref", 5, "link 'gone.md' names no file of the wiki"]])
  })

  it("a source entry with no path is a broken source; every raw file cited somewhere is not reported", () => {
    const tree = { "pages/a.md": page("sources: [{title: x}, raw/r.md]\n"), "raw/r.md": "r", "raw/data.csv": "x" }
    const scan = scanTree(llmWikiAdapter, tree)
    expect(scan.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ["broken-source", "pages/a.md"],
      ["uncited-raw", "raw/data.csv"]
    ])
  })

  it("raw sources and the schema need no description; a malformed page is still indexed, its fields unknown rather than missing", () => {
    const scan = scanTree(llmWikiAdapter, { "schema.md": "# S", "raw/a.md": "text", "pages/p.md": "---\ntitle: [x\n---\n\n# Salvaged\n" })
    expect(scan.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ["invalid-frontmatter", "pages/p.md"],
      ["uncited-raw", "raw/a.md"]
    ])
    expect(scan.items.find((i) => i.conceptId === "pages/p")!.projection).toMatchObject({ name: "Salvaged", type: "note" })
  })
})

describe("llm-wiki: one rule table (R-AD-3)", () => {
  const tree = { "pages/a.md": "---\ndescription: d\nsources: [raw/none.md]\n---\n" }
  const context = (adapter: typeof llmWikiAdapter) => Effect.runSync(adapter.authoringContext!(bundle, "pages", "create"))

  it("removing a row stops enforcing and teaching it; changing severity changes both", () => {
    const without = makeLlmWikiAdapter(llmWikiRules.filter((r) => r.code !== "broken-source"))
    expect(codes(scanTree(llmWikiAdapter, tree).diagnostics)).toEqual(["broken-source"])
    expect(codes(scanTree(without, tree).diagnostics)).toEqual([])
    expect(context(without).instructions).not.toContain("broken-source")
    const softer = makeLlmWikiAdapter(llmWikiRules.map((r) => (r.code === "broken-source" ? { ...r, severity: "warning" as const } : r)))
    expect(scanTree(softer, tree).diagnostics.map((d) => d.severity)).toEqual(["warning"])
    expect(context(softer).instructions).toContain("`broken-source` (warning)")
    expect(context(softer).ruleHash).not.toBe(context(llmWikiAdapter).ruleHash)
  })

  it("schema.md is guidance (path, hash, text) and part of the rule hash when the bundle's files are given", () => {
    const schema = readFileSync(`${fixture}/schema.md`, "utf8")
    const withFiles = (text: string): ValidateContext => contextFromTree({ "schema.md": text, "pages/a.md": "" })
    const authoring = llmWikiAdapter.authoringContext as (b: typeof bundle, t: string, o: "create", ctx?: ValidateContext) => Effect.Effect<{ guidance: ReadonlyArray<unknown>; ruleHash: string }>
    const a = Effect.runSync(authoring(bundle, "pages", "create", withFiles(schema)))
    expect(a.guidance).toEqual([{ path: "schema.md", hash: createHash("sha256").update(schema).digest("hex"), text: schema }])
    expect(Effect.runSync(authoring(bundle, "pages", "create", withFiles(schema))).ruleHash).toBe(a.ruleHash)
    expect(Effect.runSync(authoring(bundle, "pages", "create", withFiles(`${schema}\nOne more rule.\n`))).ruleHash).not.toBe(a.ruleHash)
  })
})

describe("llm-wiki: authoring", () => {
  const tree = { "schema.md": "# S", "pages/existing.md": "", "raw/paper.md": "p" }
  const create = (request: CreateRequest) => Effect.runSync(Effect.either(llmWikiAdapter.create!(request, contextFromTree(tree, { name: "wiki" }))))

  it("writes a page under pages/ with its kind, links and sources", () => {
    const [change] = Either.getOrThrow(create({ title: "Attention", description: "How attention works", type: "concept", body: "Text.", fields: { xrefs: ["pages/existing"], sources: ["raw/paper.md"] } }))
    expect(change).toEqual({
      bundle: "wiki",
      path: "pages/attention.md",
      beforeHash: null,
      after: "---\ntitle: Attention\ndescription: How attention works\npageKind: concept\nxrefs:\n  - pages/existing\nsources:\n  - raw/paper.md\n---\n\n# Attention\n\nText.\n"
    })
    expect(scanTree(llmWikiAdapter, { ...tree, [change!.path]: change!.after as string }).diagnostics.filter((d) => d.path === change!.path)).toEqual([])
  })

  it("refuses raw/, the schema, reserved names, existing pages and sources that do not exist", () => {
    const reason = (request: CreateRequest) => {
      const result = create(request)
      return Either.isLeft(result) ? result.left.reason : "created"
    }
    expect(reason({ title: "x", conceptId: "raw/x", body: "" })).toBe("raw/x is outside pages/")
    expect(reason({ title: "x", conceptId: "schema", body: "" })).toBe("schema is outside pages/")
    expect(reason({ title: "x", conceptId: "pages/topics/index", body: "" })).toBe("pages/topics/index is reserved")
    expect(reason({ title: "Existing", body: "" })).toBe("pages/existing already exists")
    expect(reason({ title: "New", body: "", fields: { sources: ["raw/nope.md"] } })).toBe("sources do not exist: raw/nope.md")
    expect(reason({ title: "New", body: "", fields: { sources: ["https://example.com/paper"] } })).toBe("created")
  })
})
