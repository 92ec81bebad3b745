import { createHash } from "node:crypto"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeWebsiteSnapshotAdapter, websiteSnapshotAdapter } from "../../../src/layers/adapters/website-snapshot/index.js"
import { websiteSnapshotRules } from "../../../src/layers/adapters/website-snapshot/rules.js"
import { codes, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixture = fileURLToPath(new URL("../../fixtures/adapters/website-snapshot", import.meta.url))
const okfFixture = fileURLToPath(new URL("../../fixtures/adapters/okf", import.meta.url))

const probe = (tree: Tree): boolean => Effect.runSync(websiteSnapshotAdapter.probe(probeContextFromTree(tree)))

const manifest = (pages: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ url: "https://site.example/", fetchedAt: "2026-05-01T00:00:00Z", pages, ...extra })

describe("website-snapshot adapter: golden snapshot", () => {
  const scan = scanDir(websiteSnapshotAdapter, fixture)

  it("indexes every page with the manifest's title, the first paragraph and type website", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name, i.projection.description])).toEqual([
      ["api/errors", "website", "Error reference", "Every error response carries a stable code and an HTTP status."],
      ["guide/getting-started", "website", "Getting started with Example", "Install the Example server with your package manager and run example serve to start it on port 8080."],
      ["index", "website", "Example Docs", "Example Docs explains how to install, configure and operate the Example server."],
      ["notes/local-annotations", "website", "Local annotations", "Our deployment overrides the default port to 9090."]
    ])
  })

  it("carries the source URL and fetch time, and links pages by path and by crawled URL", () => {
    const page = scan.items.find((i) => i.conceptId === "guide/getting-started")!.projection
    expect(page.hints).toEqual(["https://docs.example.org/guide/getting-started", "Getting started", "Install", "Next steps"])
    expect(page.updated).toBe("2026-05-01T10:00:02Z")
    expect(page.extra).toEqual({
      sourceUrl: "https://docs.example.org/guide/getting-started",
      finalUrl: "https://docs.example.org/guide/getting-started/",
      fetchedAt: "2026-05-01T10:00:02Z",
      contentHash: "8373d4e68d60b85e0604c897f942d5e613bac0c3757a3cb344baee251dbba0e6",
      etag: "\"5f3a-1b\"",
      lastModified: "Tue, 28 Apr 2026 09:12:00 GMT",
      revision: "2026-05-01T10:00:00Z"
    })
    expect(page.links).toEqual(["api/errors", "guide/configuration"])
    // Content is prose: code fences and link targets are left out (spec 04 §1).
    expect(page.content).toContain("Read configuration to change the port")
    expect(page.content).not.toContain("npm install")
    // An absolute link with a fragment still finds its page.
    expect(scan.items.find((i) => i.conceptId === "api/errors")!.projection.links).toEqual(["guide/getting-started"])
    // A page the manifest does not list has no source.
    const unlisted = scan.items.find((i) => i.conceptId === "notes/local-annotations")!.projection
    expect(unlisted.extra).toBeUndefined()
    expect(unlisted.updated).toBeUndefined()
  })

  it("reports the missing page, the unlisted page and the edited page", () => {
    expect(scan.diagnostics.map((d) => [d.path, d.severity, d.code])).toEqual([
      ["api/errors.md", "warning", "content-hash-mismatch"],
      ["manifest.json", "warning", "missing-page"],
      ["notes/local-annotations.md", "info", "unlisted-page"]
    ])
  })

  it("scans deterministically (R-AD-2)", () => {
    expect(scanDir(websiteSnapshotAdapter, fixture)).toEqual(scan)
  })

  it("the probe picks the snapshot and not an OKF bundle (R-AD-6)", () => {
    expect(probe(treeFromDir(fixture))).toBe(true)
    expect(probe(treeFromDir(okfFixture, { includeHidden: true }))).toBe(false)
  })

  it("is read-only with manifest.json as its coupling file", () => {
    expect(websiteSnapshotAdapter.writable).toBe(false)
    expect(websiteSnapshotAdapter.create).toBeUndefined()
    expect(websiteSnapshotAdapter.couplingFiles).toEqual(["manifest.json"])
  })
})

describe("website-snapshot adapter: probe", () => {
  it("needs a root manifest.json with url and fetchedAt", () => {
    expect(probe({ "manifest.json": manifest([]) })).toBe(true)
    expect(probe({ "manifest.json": JSON.stringify({ url: "https://x.example/" }) })).toBe(false)
    expect(probe({ "manifest.json": JSON.stringify({ name: "pkg", version: "1.0.0" }) })).toBe(false)
    expect(probe({ "manifest.json": "{ not json" })).toBe(false)
    expect(probe({ "docs/manifest.json": manifest([]) })).toBe(false)
  })
})

describe("website-snapshot adapter: manifest", () => {
  const page = "# Title\n\nFirst paragraph.\n"
  const hash = createHash("sha256").update(page).digest("hex")

  it("accepts spec 02's canonicalUrl and a sha256: prefixed hash", () => {
    const result = scanTree(websiteSnapshotAdapter, {
      "manifest.json": manifest([{ path: "./p.md", canonicalUrl: "https://site.example/p", title: "P", contentHash: `sha256:${hash}` }]),
      "p.md": page
    })
    expect(result.diagnostics).toEqual([])
    expect(result.items[0]!.projection).toMatchObject({ name: "P", updated: "2026-05-01T00:00:00Z", extra: { sourceUrl: "https://site.example/p" } })
  })

  it("falls back to the first heading for a page without a manifest title", () => {
    const result = scanTree(websiteSnapshotAdapter, { "manifest.json": manifest([{ path: "p.md", url: "https://site.example/p" }]), "p.md": page })
    expect(result.items[0]!.projection.name).toBe("Title")
  })

  it("reports a broken manifest once and still indexes the pages", () => {
    for (const text of ["{ nope", "[]", JSON.stringify({ url: "https://site.example/" }), ""]) {
      const result = scanTree(websiteSnapshotAdapter, { "manifest.json": text, "p.md": page })
      expect(codes(result.diagnostics)).toEqual(["invalid-manifest"])
      expect(result.items.map((i) => i.projection.name)).toEqual(["Title"])
    }
    const missing = scanTree(websiteSnapshotAdapter, { "p.md": page })
    expect(codes(missing.diagnostics)).toEqual(["invalid-manifest"])
  })

  it("reports bad page entries and keeps the good ones", () => {
    const result = scanTree(websiteSnapshotAdapter, {
      "manifest.json": manifest(
        [
          { path: "p.md", url: "https://site.example/p", title: "Good" },
          { path: "../escape.md", url: "https://site.example/e" },
          { path: "/abs.md", url: "https://site.example/a" },
          { path: "image.png", url: "https://site.example/i" },
          { path: "p.md", url: "https://site.example/p2" },
          { url: "https://site.example/nopath" },
          "not an object"
        ],
        { complete: false }
      ),
      "p.md": page
    })
    expect(result.items[0]!.projection.name).toBe("Good")
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["invalid-manifest-entry", "warning"],
      ["invalid-manifest-entry", "warning"],
      ["invalid-manifest-entry", "warning"],
      ["invalid-manifest-entry", "warning"],
      ["invalid-manifest-entry", "warning"],
      ["invalid-manifest-entry", "warning"],
      ["incomplete-snapshot", "info"]
    ])
  })

  it("the rule table decides what is reported (R-AD-3)", () => {
    const tree = { "manifest.json": manifest([]), "p.md": page }
    expect(codes(scanTree(websiteSnapshotAdapter, tree).diagnostics)).toEqual(["unlisted-page"])
    const quiet = makeWebsiteSnapshotAdapter(websiteSnapshotRules.filter((r) => r.code !== "unlisted-page"))
    expect(scanTree(quiet, tree).diagnostics).toEqual([])
  })
})
