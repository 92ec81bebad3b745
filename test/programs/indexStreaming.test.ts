import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Exit, Layer } from "effect"
import type { BundleAdapter, BundleInfo, LintItem } from "../../src/domain/Adapter.js"
import type { IndexDocument } from "../../src/domain/IndexDocument.js"
import { WorkspaceUnavailable } from "../../src/domain/Errors.js"
import { makeIndexStore } from "../../src/layers/sqlite/IndexStoreSqlite.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { resolveBundle, SCAN_BATCH, scanStreamed, scanWith } from "../../src/programs/scan.js"
import { BundleFiles } from "../../src/services/BundleFiles.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { caller, folder } from "./writeFixtures.js"


/** An akm bundle of more items than one scan batch: notes with frontmatter, headings, links and a few findings. */
const bigBundle = (count: number): Record<string, string> => {
  const files: Record<string, string> = {}
  for (let i = 0; i < count; i++) {
    const id = String(i).padStart(3, "0")
    const description = i % 9 === 0 ? "" : `description: Note ${id} on caching\n`
    const xrefs = i % 10 === 0 ? `xrefs: [knowledge/n${String((i + 1) % count).padStart(3, "0")}#part-b, knowledge/missing-${id}]\n` : ""
    files[`knowledge/n${id}.md`] = `---\nname: note-${id}\n${description}tags: [t${i % 4}]\n${xrefs}---\n# Note ${id}\n\nFirst paragraph of ${id}.\n\n## Part A\n\nSee [next](n${String((i + 1) % count).padStart(3, "0")}.md) and [gone](gone-${id}.md).\n\n## Part B\n\nDone.\n`
  }
  files["skills/pdf/SKILL.md"] = "---\nname: pdf\ndescription: Fill PDF forms. Use when a form must be filled.\n---\n# PDF\n\nRun `scripts/fill.py`.\n"
  files["skills/pdf/scripts/fill.py"] = "print('fill')\n"
  files["skills/pdf/reference.md"] = "# Reference\n\nField names.\n"
  return files
}

const byRef = (a: IndexDocument, b: IndexDocument) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)

describe("scanStreamed (spec 10 §2: documents in bounded batches)", () => {
  it.effect("hands on the same documents as scanWith, sorted by ref, in batches of at most the batch size; findings are the same", () =>
    Effect.gen(function* () {
      const root = folder(bigBundle(23))
      yield* bundleAdd({ source: root, name: "kb", adapter: "akm", ...caller })
      const { info, adapter } = yield* resolveBundle("kb")
      const whole = yield* scanWith(info, adapter)
      const files = yield* BundleFiles
      const walked = yield* files.walk(info.root, { includeHidden: false })
      const batches: Array<ReadonlyArray<IndexDocument>> = []
      const streamed = yield* scanStreamed(info, adapter, walked, (docs) => Effect.sync(() => void batches.push(docs)), 4)
      expect(batches.every((b) => b.length > 0 && b.length <= 4)).toBe(true)
      expect(batches.length).toBe(Math.ceil(whole.documents.length / 4))
      const all = batches.flat()
      expect(all).toEqual([...all].sort(byRef))
      expect(all).toEqual(whole.documents)
      expect(streamed.items).toBe(whole.documents.length)
      expect(streamed.diagnostics).toEqual(whole.diagnostics)
      expect(streamed.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(["broken-ref", "dangling-link", "missing-description"]))
      expect(streamed.complete).toBe(true)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("whole-bundle rules see every projected item in plan order, without body, hints, description or outline", () =>
    Effect.gen(function* () {
      const root = folder({ "b.md": "# B\n\nBody b.", "a.md": "---\ndescription: A\n---\n# A\n\nBody a.", "c.md": "# C\n" })
      let seen: ReadonlyArray<LintItem> = []
      const adapter: BundleAdapter = {
        id: "fake",
        version: "1",
        writable: false,
        description: "test",
        rules: [],
        probe: () => Effect.succeed(true),
        // Plan order differs from ref order on purpose.
        plan: (files) => ({ items: [...files].reverse().map((f) => ({ conceptId: f.path.replace(/\.md$/, ""), files: [f.path] })), diagnostics: [] }),
        project: (item, ctx) =>
          Effect.map(ctx.readText(item.files[0]!), (text) => ({
            projection: { name: item.conceptId, description: "d", content: text, hints: ["h"], outline: [{ depth: 1, text: "T", slug: "t" }], links: ["x"], extra: { keep: item.conceptId } },
            diagnostics: []
          })),
        lintBundle: (_ctx, items) => Effect.sync(() => {
          seen = items
          return []
        })
      }
      const info: BundleInfo = { name: "b", root, writable: false }
      const files = yield* BundleFiles
      const walked = yield* files.walk(root, { includeHidden: false })
      const order: Array<string> = []
      yield* scanStreamed(info, adapter, walked, (docs) => Effect.sync(() => void order.push(...docs.map((d) => d.conceptId))), 1)
      expect(order).toEqual(["a", "b", "c"])
      expect(seen.map((i) => i.plan.conceptId)).toEqual(["c", "b", "a"])
      expect(seen[0]!.projection).toEqual({ name: "c", links: ["x"], extra: { keep: "c" } })
    }).pipe(Effect.provide(AkmTest)))
})

/** The index store of the test graph, with its streamed persist made to fail on a chosen write (a disk error mid-bundle). */
const failing = { onWrite: 0 }
const failingSink = (store: IndexStore["Type"]): IndexStore["Type"] => ({
  ...store,
  persistStreamed: (bundle, produce, options) => {
    let writes = 0
    return store.persistStreamed(bundle, (sink) =>
      produce({
        write: (docs, inputs) =>
          ++writes === failing.onWrite
            ? Effect.fail(new WorkspaceUnavailable({ path: "index.db", reason: "disk full", hint: "free some space" }))
            : sink.write(docs, inputs),
        keep: sink.keep
      }), options)
  }
})
const FailingMiniSearch = Layer.effect(IndexStore, Effect.map(IndexStore, failingSink)).pipe(Layer.provideMerge(AkmTest))
const FailingSqlite = Layer.scoped(IndexStore, Effect.map(makeIndexStore(":memory:"), failingSink)).pipe(Layer.provideMerge(AkmTest))

for (const [name, layer] of [["minisearch", FailingMiniSearch], ["sqlite", FailingSqlite]] as const) {
  describe(`indexBundles with a bundle larger than one batch (${name})`, () => {
    it.effect("indexes every document exactly as scanned, and the manifest knows every file", () =>
      Effect.gen(function* () {
        failing.onWrite = 0
        const count = SCAN_BATCH * 2 + 7
        const root = folder(bigBundle(count))
        yield* bundleAdd({ source: root, name: "kb", adapter: "akm", ...caller })
        const result = yield* indexBundles({ full: true })
        const store = yield* IndexStore
        const { info, adapter } = yield* resolveBundle("kb")
        const scan = yield* scanWith(info, adapter)
        expect(scan.documents.length).toBeGreaterThan(SCAN_BATCH * 2)
        expect(result.bundles).toMatchObject([{ bundle: "kb", status: "indexed" }])
        expect(result.totals.items).toBe(scan.documents.length)
        for (const doc of scan.documents) expect(yield* store.resolve(doc.ref)).toEqual(doc)
        const manifest = yield* store.manifest("kb")
        expect(manifest?.files.map((f) => f.path)).toEqual(scan.files.map((f) => f.path))
        expect(manifest?.files.filter((f) => f.hash !== undefined)).toHaveLength(scan.documents.filter((d) => d.files.length === 1).length)
        expect(manifest?.diagnostics).toEqual({ error: 0, warning: scan.diagnostics.filter((d) => d.severity === "warning").length, info: scan.diagnostics.filter((d) => d.severity === "info").length })
      }).pipe(Effect.provide(layer)))

    it.effect("a write failing mid-bundle fails the run and leaves the previous rows and manifest intact (R-IDX-3)", () =>
      Effect.gen(function* () {
        failing.onWrite = 0
        const root = folder(bigBundle(SCAN_BATCH * 3))
        yield* bundleAdd({ source: root, name: "kb", adapter: "akm", ...caller })
        const store = yield* IndexStore
        const { info, adapter } = yield* resolveBundle("kb")
        const before = yield* scanWith(info, adapter)
        const manifestBefore = yield* store.manifest("kb")
        for (const doc of before.documents) expect(yield* store.resolve(doc.ref)).toEqual(doc)

        // Every file changes and a note is added, then the second batch's write fails.
        for (const [file, text] of Object.entries(bigBundle(SCAN_BATCH * 3 + 1))) fs.writeFileSync(path.join(root, file), `${text}\nEdited.\n`)
        failing.onWrite = 2
        const exit = yield* Effect.exit(indexBundles({}))
        expect(Exit.isFailure(exit)).toBe(true)
        for (const doc of before.documents) expect(yield* store.resolve(doc.ref)).toEqual(doc)
        expect(yield* store.has("kb", `knowledge/n${String(SCAN_BATCH * 3).padStart(3, "0")}`)).toBe(false)
        expect(yield* store.manifest("kb")).toEqual(manifestBefore)

        // The next run succeeds and picks the change up.
        failing.onWrite = 0
        const again = yield* indexBundles({})
        expect(again.bundles).toMatchObject([{ status: "indexed", added: 1, updated: before.documents.length, removed: 0 }])
      }).pipe(Effect.provide(layer)))
  })
}
