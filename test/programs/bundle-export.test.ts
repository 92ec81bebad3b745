import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { parse as parseYaml } from "yaml"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { bundleExport, exportConceptId } from "../../src/programs/bundle/export.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { lint } from "../../src/programs/lint.js"
import { proposalAccept } from "../../src/programs/proposals/accept.js"
import { findProposal } from "../../src/programs/proposals/lookup.js"
import { ProposalStore } from "../../src/services/ProposalStore.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { caller, failure, folder, mine, notesWithGuide } from "./writeFixtures.js"

// akm bundle export (spec 02 "website": website → writable bundle export; spec 05: one proposal).

const FETCHED = "2026-05-01T10:00:00Z"

/** A website snapshot as the crawler writes it: manifest.json plus markdown pages (one of them unlisted). */
const snapshot = (): string =>
  folder({
    "manifest.json": JSON.stringify({
      url: "https://docs.example.org/",
      fetchedAt: FETCHED,
      revision: "rev-1",
      complete: true,
      pages: [
        { path: "index.md", url: "https://docs.example.org/", title: "Example Docs", fetchedAt: FETCHED },
        {
          path: "guide/getting-started.md",
          url: "https://docs.example.org/guide/getting-started",
          finalUrl: "https://docs.example.org/guide/getting-started/",
          title: "Getting started",
          fetchedAt: "2026-05-01T10:00:02Z",
          lastModified: "Tue, 28 Apr 2026 09:12:00 GMT"
        },
        { path: "guide/install.md", url: "https://docs.example.org/guide/install", title: "Installing Example", fetchedAt: "2026-05-01T10:00:03Z" },
        { path: "api/errors.md", url: "https://docs.example.org/api/errors", title: "Error codes", fetchedAt: "2026-05-01T10:00:04Z" }
      ]
    }),
    "index.md": "# Example Docs\n\nExample is a tool for examples.\n",
    "guide/getting-started.md": "# Getting started\n\nInstall Example, then run `example init` in your project.\n\n## Next\n\nSee [install](install.md).\n",
    "guide/install.md": "# Installing Example\n\nUse npm: `npm install example`.\n",
    "api/errors.md": "# Error codes\n\nE42 means the frobnicator is cold.\n",
    "drafts/unlisted.md": "# Unlisted\n\nNot in the manifest.\n"
  })

const frontmatterOf = (text: string): Record<string, unknown> => parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!) as Record<string, unknown>

const errorsIn = (bundle: string) =>
  lint({ bundle, strict: false, fix: false, failOn: "error" }).pipe(
    Effect.map((r) => r.bundles[0]!.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === "error").map((d) => `${f.path}: ${d.code} ${d.message}`)))
  )

const proposalCount = Effect.flatMap(ProposalStore, (store) => store.list({})).pipe(Effect.map((list) => list.length))

describe("bundle export", () => {
  it.effect("every listed page becomes an OKF concept in one pending proposal; accepted, they lint clean and cite their source", () =>
    Effect.gen(function* () {
      const web = snapshot()
      yield* bundleAdd({ source: web, name: "web", adapter: "website-snapshot", ...caller })
      const notes = notesWithGuide()
      yield* bundleAdd({ source: notes, name: "notes", ...caller })
      const result = yield* bundleExport({ source: "web", to: "notes" })
      expect(result).toMatchObject({ source: "web", bundle: "notes", adapter: "okf", dryRun: false, status: "pending", verdict: "pass" })
      expect(result.files).toEqual(["api/errors.md", "guide/getting-started.md", "guide/install.md", "example-docs.md"])
      expect(result.skipped).toEqual([{ page: "drafts/unlisted.md", reason: expect.stringContaining("manifest does not list it") }])
      expect(result.pages).toContainEqual({ page: "guide/getting-started.md", url: "https://docs.example.org/guide/getting-started/", path: "guide/getting-started.md", ref: "notes//guide/getting-started" })
      expect(result.hint).toContain(`akm proposal accept ${result.id!.slice(0, 8)}`)
      // Nothing is written before the proposal is accepted.
      expect(fs.existsSync(path.join(notes, "guide/getting-started.md"))).toBe(false)

      const proposal = yield* findProposal(result.id!)
      expect(proposal).toMatchObject({ recipe: "export", changeClass: "semantic", status: "pending" })
      expect(proposal.changes).toHaveLength(4)
      expect(proposal.changes.every((c) => c.bundle === "notes" && c.beforeHash === null)).toBe(true)
      expect(proposal.evidence).toContainEqual(expect.objectContaining({ kind: "website-page", id: "web//guide/getting-started", note: "https://docs.example.org/guide/getting-started/" }))

      expect((yield* proposalAccept(result.id!)).status).toBe("accepted")
      expect(yield* errorsIn("notes")).toEqual([])
      const text = fs.readFileSync(path.join(notes, "guide/getting-started.md"), "utf8")
      expect(text).toContain("# Getting started\n\nInstall Example")
      const fields = frontmatterOf(text)
      expect(fields).toMatchObject({
        type: "knowledge",
        title: "Getting started",
        description: "Install Example, then run example init in your project.",
        sources: [{
          id: "web//guide/getting-started",
          resource: "https://docs.example.org/guide/getting-started/",
          title: "Getting started",
          fetched_at: "2026-05-01T10:00:02Z",
          snapshot_revision: "rev-1",
          last_modified: "2026-04-28T09:12:00.000Z"
        }],
        generated: { by: expect.stringMatching(/^akm\//) }
      })
      expect(Object.keys(fields).some((key) => key === "akm" || key.startsWith("akm:"))).toBe(false)
      // The root index page is named after its title: OKF reserves index.md.
      expect(frontmatterOf(fs.readFileSync(path.join(notes, "example-docs.md"), "utf8"))).toMatchObject({ title: "Example Docs", sources: [{ resource: "https://docs.example.org/" }] })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("into an akm bundle: --pages matches page paths and URL paths; provenance is a source mapping plus observed_at", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: snapshot(), name: "web", ...caller })
      const root = yield* mine
      const guide = yield* bundleExport({ source: "web", to: "mine", pages: ["guide/**"] })
      expect(guide).toMatchObject({ adapter: "akm", files: ["knowledge/guide/getting-started.md", "knowledge/guide/install.md"], skipped: [] })
      expect(guide.pages.map((p) => p.ref)).toEqual(["mine//knowledge/guide/getting-started", "mine//knowledge/guide/install"])
      const byUrl = yield* bundleExport({ source: "web", to: "mine", pages: ["/api/*"] })
      expect(byUrl.files).toEqual(["knowledge/api/errors.md"])
      const both = yield* bundleExport({ source: "web", to: "mine", pages: ["/", "api/errors.md"] })
      expect(both.files).toEqual(["knowledge/api/errors.md", "knowledge/example-docs.md"])

      yield* proposalAccept(guide.id!)
      expect(yield* errorsIn("mine")).toEqual([])
      const fields = frontmatterOf(fs.readFileSync(path.join(root, "knowledge/guide/install.md"), "utf8"))
      expect(fields).toEqual({
        description: "Use npm: npm install example.",
        observed_at: "2026-05-01T10:00:03Z",
        source: { url: "https://docs.example.org/guide/install", ref: "web//guide/install", title: "Installing Example", fetchedAt: "2026-05-01T10:00:03Z", revision: "rev-1" }
      })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a taken name is skipped, never overwritten; when every page is taken the export is a conflict", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: snapshot(), name: "web", ...caller })
      const root = yield* mine
      yield* proposalAccept((yield* bundleExport({ source: "web", to: "mine", pages: ["guide/install.md"] })).id!)
      const before = fs.readFileSync(path.join(root, "knowledge/guide/install.md"), "utf8")
      const rest = yield* bundleExport({ source: "web", to: "mine", pages: ["guide/*"] })
      expect(rest.files).toEqual(["knowledge/guide/getting-started.md"])
      expect(rest.skipped).toEqual([{ page: "guide/install.md", reason: expect.stringContaining("already exists") }])
      const taken = failure(yield* Effect.exit(bundleExport({ source: "web", to: "mine", pages: ["guide/install.md"] })))
      expect(taken).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("guide/install.md was skipped"), hint: expect.stringContaining("never overwritten") })
      expect(fs.readFileSync(path.join(root, "knowledge/guide/install.md"), "utf8")).toBe(before)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a non-website source, a read-only or non-authoring destination and a glob that matches nothing are refused", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: snapshot(), name: "web", ...caller })
      yield* bundleAdd({ source: notesWithGuide(), name: "notes", ...caller })
      yield* bundleAdd({ source: notesWithGuide(), name: "frozen", writable: false, ...caller })
      yield* bundleAdd({ source: folder({ "a.txt": "text\n" }), name: "files", adapter: "generic-files", ...caller })
      yield* mine

      expect(failure(yield* Effect.exit(bundleExport({ source: "notes", to: "mine" })))).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("okf adapter, not website-snapshot") })
      expect(failure(yield* Effect.exit(bundleExport({ source: "web", to: "frozen" })))).toMatchObject({ _tag: "Conflict", message: "bundle 'frozen' is read-only", hint: expect.stringContaining("writable") })
      expect(failure(yield* Effect.exit(bundleExport({ source: "web", to: "files" })))).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("generic-files adapter") })
      expect(failure(yield* Effect.exit(bundleExport({ source: "web", to: "web" })))._tag).toBe("UsageError")
      expect(failure(yield* Effect.exit(bundleExport({ source: "web", to: "nope" })))._tag).toBe("NotFound")
      const none = failure(yield* Effect.exit(bundleExport({ source: "web", to: "mine", pages: ["blog/**"] })))
      expect(none).toMatchObject({ _tag: "UsageError", message: expect.stringContaining("'blog/**'"), hint: expect.stringContaining("guide/getting-started.md") })
      expect(yield* proposalCount).toBe(0)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("--dry-run renders and validates but stores no proposal", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: snapshot(), name: "web", ...caller })
      const root = yield* mine
      const dry = yield* bundleExport({ source: "web", to: "mine", dryRun: true })
      expect(dry).toMatchObject({ dryRun: true, id: null, status: null, verdict: "pass", files: expect.arrayContaining(["knowledge/api/errors.md"]) })
      expect(dry.files).toHaveLength(4)
      expect(yield* proposalCount).toBe(0)
      expect(fs.existsSync(path.join(root, "knowledge"))).toBe(false)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("export is semantic: it waits for review even when policy.autoApply lists every class it may", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: snapshot(), name: "web", ...caller })
      yield* mine
      yield* (yield* WorkspaceConfig).update((editor) => editor.set(["policy", "autoApply"], ["mechanical", "verified-semantic"]))
      const result = yield* bundleExport({ source: "web", to: "mine", pages: ["api/*"] })
      expect(result.status).toBe("pending")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a refresh of the website bundle never touches the exported copy", () =>
    Effect.gen(function* () {
      const web = snapshot()
      yield* bundleAdd({ source: web, name: "web", ...caller })
      const root = yield* mine
      yield* proposalAccept((yield* bundleExport({ source: "web", to: "mine", pages: ["api/errors.md"] })).id!)
      const exported = path.join(root, "knowledge/api/errors.md")
      const before = fs.readFileSync(exported, "utf8")
      fs.writeFileSync(path.join(web, "api/errors.md"), "# Error codes\n\nE42 now means the frobnicator is hot.\n")
      yield* indexBundles({ bundle: "web" })
      yield* indexBundles({})
      expect(fs.readFileSync(exported, "utf8")).toBe(before)
      expect(before).toContain("frobnicator is cold")
    }).pipe(Effect.provide(AkmTest)))

  it("names pages after their path; index pages take their directory's name, the root's its title", () => {
    expect(exportConceptId("guide/getting-started", "Getting started")).toBe("guide/getting-started")
    expect(exportConceptId("Guide/Getting_Started", "x")).toBe("guide/getting-started")
    expect(exportConceptId("guide/index", "Guide")).toBe("guide")
    expect(exportConceptId("index", "Example Docs")).toBe("example-docs")
    expect(exportConceptId("index", "!!!")).toBe("home")
    expect(exportConceptId("news/log", "Log")).toBe("news/log-page")
  })
})
