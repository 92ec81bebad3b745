import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { okfAdapter, updateConcept } from "../../src/layers/adapters/okf/index.js"
import { okfListings } from "../../src/layers/adapters/okf/indexListing.js"
import { contextFromTree, probeContextFromTree, scanDir, treeFromDir } from "../support/adapterHarness.js"

/**
 * The shared OKF bundles (corpora/okf, spec 10 §4): read in place from
 * AKM_CORPORA or ../shared, never copied. Concept counts are those of the
 * corpus NOTICE: acme_retail has Metric ×3, Attested Computation ×2, Policy ×2,
 * BigQuery Table and Skill; ga4 has Reference ×7, BigQuery Dataset and
 * BigQuery Table.
 */
const corpora = process.env.AKM_CORPORA ? resolve(process.env.AKM_CORPORA) : fileURLToPath(new URL("../../../shared", import.meta.url))
const bundles = join(corpora, "corpora", "okf", "bundles")

const cases = [
  { name: "acme_retail", concepts: 9, types: { Metric: 3, "Attested Computation": 2, Policy: 2, "BigQuery Table": 1, Skill: 1 } },
  { name: "ga4", concepts: 9, types: { Reference: 7, "BigQuery Dataset": 1, "BigQuery Table": 1 } }
] as const

describe.skipIf(!existsSync(bundles))("okf conformance: shared bundles", () => {
  describe.each(cases)("$name", ({ name, concepts, types }) => {
    const root = join(bundles, name)
    const scan = scanDir(okfAdapter, root)

    it(`indexes ${concepts} concepts with their types`, () => {
      expect(scan.items).toHaveLength(concepts)
      const counted: Record<string, number> = {}
      for (const item of scan.items) counted[item.projection.type!] = (counted[item.projection.type!] ?? 0) + 1
      expect(counted).toEqual(types)
    })

    it("lints clean: no errors, and nothing a --strict conformance lint would fail", () => {
      expect(scan.diagnostics.filter((d) => d.severity === "error")).toEqual([])
      const strictCodes = new Set(okfAdapter.rules.filter((r) => r.strictSeverity === "error").map((r) => r.code))
      expect(scan.diagnostics.filter((d) => strictCodes.has(d.code))).toEqual([])
      expect(scan.diagnostics).toEqual([])
    })

    it("never makes index.md, log.md, viz.html or code files items", () => {
      for (const item of scan.items) {
        expect(item.files[0]).toMatch(/\.md$/)
        expect(item.files[0]).not.toMatch(/(^|\/)(index|log)\.md$/)
      }
    })

    it("is picked by the okf probe", () => {
      expect(Effect.runSync(okfAdapter.probe(probeContextFromTree(treeFromDir(root, { includeHidden: true }))))).toBe(true)
    })

    it("updates any concept's title by changing that line only (source-preserving)", () => {
      for (const item of scan.items) {
        const text = readFileSync(join(root, item.files[0]!), "utf8")
        const edited = Either.getOrThrow(updateConcept(text, { title: "Edited title" }))
        const before = text.split("\n")
        const after = edited.split("\n")
        expect(after.length).toBe(before.length)
        const changed = before.flatMap((line, i) => (line === after[i] ? [] : [[line, after[i]]]))
        expect(changed).toEqual([[before.find((l) => l.startsWith("title:")), "title: Edited title"]])
      }
    })

    it("okf index finds every index.md current (hand-worded entries kept), and re-adds an entry taken out", () => {
      const tree = treeFromDir(root, { includeHidden: true })
      const listings = Effect.runSync(okfListings(contextFromTree(tree)))
      expect(listings.length).toBeGreaterThan(1)
      for (const listing of listings) expect(listing.text).toBe(tree[listing.path])
      // Take the first concept entry out of a folder index: generation puts it back, as a generated line.
      const folderIndex = listings.find((l) => l.path !== "index.md" && /\]\([^)/]+\.md\)/.test(l.text))!
      const withoutFirst = folderIndex.text.replace(/^\* \[[^\n]*\.md\)[^\n]*\n/m, "")
      const regenerated = Effect.runSync(okfListings(contextFromTree({ ...tree, [folderIndex.path]: withoutFirst }))).find((l) => l.path === folderIndex.path)!
      expect(regenerated.text).not.toBe(withoutFirst)
      expect(regenerated.text.split("\n").length).toBe(folderIndex.text.split("\n").length)
    })
  })

  it("acme_retail's deprecated metric, provenance and trust come through", () => {
    const scan = scanDir(okfAdapter, join(bundles, "acme_retail"))
    const legacy = scan.items.find((i) => i.conceptId === "metrics/gross-margin-legacy")!
    expect(legacy.projection.status).toBe("deprecated")
    const revenue = scan.items.find((i) => i.conceptId === "computations/revenue-ytd")!
    expect(revenue.projection).toMatchObject({ status: "stable", staleAfter: "2026-12-31T00:00:00Z", extra: { trust: "human-reviewed" } })
    const policy = scan.items.find((i) => i.conceptId === "policies/revenue-recognition")!
    expect(policy.projection.links).toEqual(expect.arrayContaining(["tables/orders", "metrics/revenue", "computations/revenue-ytd"]))
  })
})
