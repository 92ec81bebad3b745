import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer } from "effect"
import type { BundleAdapter, FileMeta } from "../../src/domain/Adapter.js"
import { makeProgress } from "../../src/layers/fs/ProgressTerminal.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles, rescanReason } from "../../src/programs/indexBundles.js"
import { search } from "../../src/programs/search.js"
import { BundleFiles } from "../../src/services/BundleFiles.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { Progress } from "../../src/services/Progress.js"
import { UsageLog } from "../../src/services/UsageLog.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { overrideAdapters } from "../support/overrideAdapters.js"

const folder = (files: Record<string, string>) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-index-")))
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), content)
  }
  return dir
}
const caller = { cwd: os.tmpdir(), home: os.tmpdir() }

const notes = {
  "index.md": "# Platform\n\n* [Caching](notes/caching.md)\n",
  "notes/caching.md": "---\ntype: guide\ntitle: HTTP caching\ndescription: How we cache\n---\n# HTTP caching\n\nUse ETags.\n",
  "notes/retries.md": "---\ntype: runbook\ntitle: Retries\n---\n# Retries\n\nBack off exponentially.\n"
}

/** Every file's bytes and mtime: R-IDX-1 says indexing never changes them. */
const treeHash = (root: string): string => {
  const hash = createHash("sha256")
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = path.join(dir, entry.name)
      hash.update(`${path.relative(root, abs)} ${fs.lstatSync(abs).mtimeMs}\n`)
      if (entry.isDirectory()) visit(abs)
      else hash.update(fs.readFileSync(abs))
    }
  }
  visit(root)
  return hash.digest("hex")
}

/** Counts how often files are read: a context per scan, a hash per item. */
const reads = { contexts: 0, hashes: 0 }
const CountingFiles = Layer.effect(
  BundleFiles,
  Effect.map(BundleFiles, (real) =>
    BundleFiles.of({
      ...real,
      context: (...args) => {
        reads.contexts++
        return real.context(...args)
      },
      hash: (root, paths) => {
        reads.hashes++
        return real.hash(root, paths)
      }
    }))
)

/** The built-in adapters, except that a plan can be made to die (a scan failing as a whole). */
const planDies = { on: false }
const DyingPlans = overrideAdapters((adapter) => ({ ...adapter, plan: (files, info) => (planDies.on ? (() => { throw new Error("plan boom") })() : adapter.plan(files, info)) }))

const warnings: Array<string> = []
const RecordingProgress = Layer.succeed(Progress, makeProgress({ quiet: false, isTTY: false, write: (text) => void warnings.push(text) }))

const TestLayer = Layer.mergeAll(CountingFiles, DyingPlans, RecordingProgress).pipe(Layer.provideMerge(AkmTest))

describe("indexBundles", () => {
  it.effect("indexes every configured bundle, records the run, then a no-op reindex only stats files (R-IDX-2)", () =>
    Effect.gen(function* () {
      const root = folder(notes)
      yield* bundleAdd({ source: root, name: "kb", ...caller })
      const store = yield* IndexStore
      const first = yield* indexBundles({ full: true })
      expect(first.bundles).toMatchObject([{ bundle: "kb", adapter: "okf", status: "indexed", reason: "--full", added: 0, unchanged: 2, files: 3 }])
      expect(first.totals).toMatchObject({ items: 2, unchanged: 2 })
      expect(yield* store.lastIndexed).toBeDefined()
      expect((yield* store.manifest("kb"))?.files.map((f) => f.path)).toEqual(["index.md", "notes/caching.md", "notes/retries.md"])
      expect((yield* store.manifest("kb"))?.files.find((f) => f.path === "notes/caching.md")?.hash).toMatch(/^[0-9a-f]{64}$/)

      reads.contexts = 0
      reads.hashes = 0
      const again = yield* indexBundles({})
      expect(again.bundles).toMatchObject([{ bundle: "kb", status: "unchanged", added: 0, updated: 0, removed: 0, unchanged: 2 }])
      expect(reads).toEqual({ contexts: 0, hashes: 0 })
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a changed, a new and a deleted file update, add and remove exactly those items", () =>
    Effect.gen(function* () {
      const root = folder(notes)
      yield* bundleAdd({ source: root, name: "kb", ...caller })
      fs.writeFileSync(path.join(root, "notes/caching.md"), `${notes["notes/caching.md"]}\nAlso Last-Modified.\n`)
      fs.writeFileSync(path.join(root, "notes/timeouts.md"), "---\ntype: guide\ntitle: Timeouts\n---\n# Timeouts\n")
      fs.rmSync(path.join(root, "notes/retries.md"))
      const result = yield* indexBundles({})
      expect(result.bundles).toMatchObject([{ status: "indexed", reason: "files changed", added: 1, updated: 1, removed: 1, unchanged: 0 }])
      const store = yield* IndexStore
      expect(yield* store.has("kb", "notes/retries")).toBe(false)
      expect((yield* store.resolve("kb//notes/caching"))?.content).toContain("Last-Modified")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("--dry-run reports the change and writes nothing", () =>
    Effect.gen(function* () {
      const root = folder(notes)
      yield* bundleAdd({ source: root, name: "kb", ...caller })
      fs.rmSync(path.join(root, "notes/retries.md"))
      const store = yield* IndexStore
      const before = yield* store.manifest("kb")
      const result = yield* indexBundles({ dryRun: true })
      expect(result.dryRun).toBe(true)
      expect(result.bundles).toMatchObject([{ status: "planned", removed: 1, unchanged: 1 }])
      expect(yield* store.has("kb", "notes/retries")).toBe(true)
      expect(yield* store.manifest("kb")).toEqual(before)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a missing root keeps the old rows, marks them stale and warns; search reports the bundle stale (R-IDX-3)", () =>
    Effect.gen(function* () {
      const root = folder(notes)
      yield* bundleAdd({ source: root, name: "kb", ...caller })
      fs.rmSync(root, { recursive: true })
      warnings.length = 0
      const result = yield* indexBundles({})
      expect(result.bundles).toMatchObject([{ bundle: "kb", status: "stale", unchanged: 2 }])
      expect(result.bundles[0]!.reason).toContain(root)
      expect(warnings.join("")).toContain("kb")
      const store = yield* IndexStore
      expect(yield* store.has("kb", "notes/caching")).toBe(true)
      const found = yield* search({ query: "caching", track: false })
      expect(found.stale).toEqual(["kb"])
      expect(found.hits.map((h) => h.ref)).toContain("kb//notes/caching")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a scan failing as a whole writes nothing and keeps the rows; the next good scan clears the stale mark", () =>
    Effect.gen(function* () {
      const root = folder(notes)
      yield* bundleAdd({ source: root, name: "kb", ...caller })
      fs.rmSync(path.join(root, "notes/retries.md"))
      planDies.on = true
      const failed = yield* indexBundles({}).pipe(Effect.ensuring(Effect.sync(() => void (planDies.on = false))))
      expect(failed.bundles).toMatchObject([{ status: "stale" }])
      expect(failed.bundles[0]!.reason).toContain("plan boom")
      const store = yield* IndexStore
      expect(yield* store.has("kb", "notes/retries")).toBe(true)
      const healed = yield* indexBundles({})
      expect(healed.bundles).toMatchObject([{ status: "indexed", removed: 1 }])
      expect((yield* store.bundles).find((b) => b.bundle === "kb")?.staleReason).toBeUndefined()
    }).pipe(Effect.provide(TestLayer)))

  it.effect("an existing empty root deletes its rows", () =>
    Effect.gen(function* () {
      const root = folder(notes)
      yield* bundleAdd({ source: root, name: "kb", ...caller })
      for (const entry of fs.readdirSync(root)) fs.rmSync(path.join(root, entry), { recursive: true })
      const result = yield* indexBundles({})
      expect(result.bundles).toMatchObject([{ status: "indexed", removed: 2, unchanged: 0 }])
      expect((yield* (yield* IndexStore).counts)["kb"]).toBeUndefined()
    }).pipe(Effect.provide(TestLayer)))

  it.effect("never writes under a bundle root (R-IDX-1)", () =>
    Effect.gen(function* () {
      const root = folder(notes)
      const before = treeHash(root)
      yield* bundleAdd({ source: root, name: "kb", ...caller })
      yield* indexBundles({ full: true })
      fs.writeFileSync(path.join(root, "notes/new.md"), "# New\n")
      const withNew = treeHash(root)
      yield* indexBundles({})
      yield* indexBundles({ dryRun: true })
      expect(treeHash(root)).toBe(withNew)
      expect(withNew).not.toBe(before)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("rows of bundles no longer configured are removed on a whole run", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: folder(notes), name: "kb", ...caller })
      yield* bundleAdd({ source: folder(notes), name: "gone", ...caller })
      yield* (yield* WorkspaceConfig).update((editor) => editor.delete(["bundles", "gone"]))
      expect((yield* indexBundles({ bundle: "kb" })).removedBundles).toEqual([])
      const result = yield* indexBundles({})
      expect(result.removedBundles).toEqual(["gone"])
      expect((yield* (yield* IndexStore).counts)["gone"]).toBeUndefined()
    }).pipe(Effect.provide(TestLayer)))

  it.effect("copies utilities from the usage log into the index (spec 04 §6)", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: folder(notes), name: "kb", ...caller })
      yield* (yield* UsageLog).recordFeedback({ ref: "kb//notes/caching", polarity: "positive", source: "user" })
      yield* indexBundles({})
      const found = yield* (yield* IndexStore).items(["kb//notes/caching"], { belief: "all", includeProposed: true })
      expect(found[0]?.utility?.value).toBeGreaterThan(0.5)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("an unknown --bundle is not found", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(indexBundles({ bundle: "nope" }))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("NotFound")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("--prune with --bundle is a usage error, even for a bundle that does not exist", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(indexBundles({ bundle: "nope", prune: true }))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("UsageError")
    }).pipe(Effect.provide(TestLayer)))
})

describe("rescanReason", () => {
  const adapter = { id: "okf", version: "2", couplingFiles: ["schema.md"] } as unknown as BundleAdapter
  const files: ReadonlyArray<FileMeta> = [{ path: "a.md", size: 3, mtimeMs: 10 }, { path: "schema.md", size: 5, mtimeMs: 10 }]
  const manifest = { bundle: "b", adapter: { id: "okf", version: "2" }, indexedAt: "t", writable: true, files }

  it("is undefined when every file is as recorded", () => {
    expect(rescanReason(manifest, adapter, true, files, false)).toBeUndefined()
  })

  it("names why a bundle is rescanned", () => {
    expect(rescanReason(manifest, adapter, true, files, true)).toBe("--full")
    expect(rescanReason({ ...manifest, root: "/old/root" }, adapter, true, files, false, "/new/root")).toBe("root moved to /new/root")
    expect(rescanReason({ ...manifest, root: "/same" }, adapter, true, files, false, "/same")).toBeUndefined()
    expect(rescanReason(undefined, adapter, true, files, false)).toBe("not indexed yet")
    expect(rescanReason({ ...manifest, staleReason: "root missing" }, adapter, true, files, false)).toBe("stale: root missing")
    expect(rescanReason({ ...manifest, adapter: { id: "okf", version: "1" } }, adapter, true, files, false)).toBe("adapter okf@1 → okf@2")
    expect(rescanReason(manifest, adapter, false, files, false)).toBe("became read-only")
    expect(rescanReason(manifest, adapter, true, [files[0]!, { path: "schema.md", size: 6, mtimeMs: 10 }], false)).toBe("coupling file schema.md changed")
    expect(rescanReason(manifest, adapter, true, [{ path: "a.md", size: 3, mtimeMs: 11 }, files[1]!], false)).toBe("files changed")
    expect(rescanReason(manifest, adapter, true, [files[0]!], false)).toBe("coupling file schema.md changed")
    expect(rescanReason(manifest, adapter, true, [...files, { path: "b.md", size: 1, mtimeMs: 1 }], false)).toBe("files changed")
  })
})
