import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { BundleAdapter } from "../../src/domain/Adapter.js"
import { okfAdapter } from "../../src/layers/adapters/okf/index.js"
import { IndexStoreSqlite } from "../../src/layers/sqlite/IndexStoreSqlite.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { search } from "../../src/programs/search.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"

const resolveRef = (ref: string) => Effect.flatMap(IndexStore, (store) => store.resolve(ref))
import { overrideAdapters } from "../support/overrideAdapters.js"
import { caller, folder } from "./writeFixtures.js"

// R-IDX-2: an incremental index reads only what changed. Items whose inputs (the files their projection read or
// probed) are all unchanged keep their rows unread, and the result is what a full rescan gives.

const NOTES = 30
const name = (i: number) => `notes/n${String(i).padStart(2, "0")}.md`
const note = (i: number, word = `topic${i}`) =>
  `---\ntype: guide\ntitle: Note ${i}\ndescription: About ${word}\n---\n# Note ${i}\n\nMentions ${word}. Next: [n](n${String((i + 1) % NOTES).padStart(2, "0")}.md).\n`
const notes = (): Record<string, string> => {
  const files: Record<string, string> = { "index.md": "# Notes\n" }
  for (let i = 0; i < NOTES; i++) files[name(i)] = note(i)
  files["notes/broken.md"] = "# Broken\n\nSee [gone](nowhere.md).\n"
  return files
}

/** Counts the adapter's projections in this thread (in place: it stays the built-in adapter). */
const projections = { count: 0 }
const counting = Effect.acquireRelease(
  Effect.sync(() => {
    const project = okfAdapter.project
    ;(okfAdapter as { project: BundleAdapter["project"] }).project = (plan, ctx) => {
      projections.count++
      return project(plan, ctx)
    }
    return project
  }),
  (project) => Effect.sync(() => void ((okfAdapter as { project: BundleAdapter["project"] }).project = project))
)

/** Sets a file's text with an mtime the manifest has not seen (a same-second rewrite would keep it otherwise). */
const rewrite = (file: string, text: string) => {
  fs.writeFileSync(file, text)
  const later = new Date(fs.statSync(file).mtimeMs + 5_000)
  fs.utimesSync(file, later, later)
}

/** Runs an incremental index, then a full rescan that must find nothing to change: the increment was exact. */
const indexThenVerify = Effect.gen(function* () {
  projections.count = 0
  const incremental = yield* indexBundles({})
  const projected = projections.count
  const full = yield* indexBundles({ full: true })
  const report = incremental.bundles[0]!
  const check = full.bundles[0]!
  expect(check).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: report.added + report.updated + report.unchanged })
  expect(check.diagnostics).toEqual(report.diagnostics)
  return { report, projected }
})

const scenario = Effect.gen(function* () {
  yield* counting
  const dir = folder(notes())
  projections.count = 0
  yield* bundleAdd({ source: dir, name: "kb", ...caller })
  expect(projections.count).toBe(NOTES + 1)

  // Nothing changed: nothing is read.
  projections.count = 0
  expect((yield* indexBundles({})).bundles[0]!.status).toBe("unchanged")
  expect(projections.count).toBe(0)

  // One note edited: it is projected again, and the note that links to it (it probed that file); no other.
  rewrite(path.join(dir, name(7)), note(7, "capybara"))
  const edited = yield* indexThenVerify
  expect(edited.report).toMatchObject({ status: "indexed", updated: 1, added: 0, removed: 0, unchanged: NOTES })
  expect(edited.projected).toBeLessThanOrEqual(2)
  expect((yield* search({ query: "capybara", track: false })).hits.map((h) => h.ref)).toEqual([`kb//${name(7).slice(0, -3)}`])

  // A note added and one removed: items that looked at the file list are projected again; the rest stay unread.
  fs.writeFileSync(path.join(dir, "notes/extra.md"), "---\ntype: guide\ndescription: An extra note\n---\n# Extra\n\nMentions wombat.\n")
  fs.rmSync(path.join(dir, name(3)))
  const moved = yield* indexThenVerify
  expect(moved.report).toMatchObject({ status: "indexed", added: 1, removed: 1 })
  expect((yield* search({ query: "wombat", track: false })).hits.map((h) => h.ref)).toEqual(["kb//notes/extra"])
  expect((yield* search({ query: "topic3", track: false })).hits).toEqual([])

  // The broken link's finding survives an increment that did not read its file.
  rewrite(path.join(dir, name(12)), note(12, "quokka"))
  const again = yield* indexThenVerify
  expect(again.report.diagnostics.warning).toBeGreaterThan(0)
  expect(again.projected).toBeLessThanOrEqual(2)
})

/** A root that moves (an update's new revision) with every file stat-equal, as npm packs stamp them: everything is read again. */
const movedRoot = Effect.gen(function* () {
  const dir = folder(notes())
  yield* bundleAdd({ source: dir, name: "kb", ...caller })
  const moved = folder()
  fs.cpSync(dir, moved, { recursive: true, preserveTimestamps: true })
  const workspace = yield* WorkspaceConfig
  yield* workspace.updateLock((lock) => ({ ...lock, bundles: { ...lock.bundles, kb: { ...lock.bundles["kb"]!, root: moved } } }))
  const report = (yield* indexBundles({})).bundles[0]!
  // Every row moves to the new paths.
  expect(report).toMatchObject({ status: "indexed", reason: `root moved to ${moved}`, updated: NOTES + 1, unchanged: 0 })
  const hit = (yield* search({ query: "topic7", track: false })).hits[0]!
  expect(hit.path.startsWith(moved)).toBe(true)
})

/**
 * OKF, except that notes/reader.md projects from another file's text (shared/data.txt, read) and from
 * whether flag.md exists (probed) — without looking at the file list: only the inputs it recorded can
 * tell an incremental run to read it again.
 */
const ReadingAdapter = overrideAdapters((adapter) =>
  adapter.id !== "okf" ? adapter : {
    ...adapter,
    project: (plan, ctx) =>
      plan.conceptId !== "notes/reader"
        ? adapter.project(plan, ctx)
        : Effect.map(ctx.readText("shared/data.txt"), (text) => ({
          projection: { name: "reader", description: `shared says ${text.trim()}; flag ${ctx.exists("flag.md") ? "up" : "down"}` },
          diagnostics: []
        }))
  })

const otherInputs = Effect.gen(function* () {
  const dir = folder({ "index.md": "# Notes\n", "notes/reader.md": "# Reader\n", "notes/other.md": "# Other\n\nPlain.\n", "shared/data.txt": "alpha\n" })
  yield* bundleAdd({ source: dir, name: "kb", ...caller })
  const description = Effect.map(resolveRef("kb//notes/reader"), (doc) => doc?.description)
  expect(yield* description).toBe("shared says alpha; flag down")

  // A file it read changed; its own file did not.
  rewrite(path.join(dir, "shared/data.txt"), "beta\n")
  expect((yield* indexThenVerify).report).toMatchObject({ updated: 1 })
  expect(yield* description).toBe("shared says beta; flag down")

  // A file it probed appeared (the item never looked at the whole list).
  fs.writeFileSync(path.join(dir, "flag.md"), "# Flag\n")
  yield* indexThenVerify
  expect(yield* description).toBe("shared says beta; flag up")
})

describe("incremental index (R-IDX-2)", () => {
  it.effect("an item is read again when a file it read or probed changes, not only its own", () =>
    otherInputs.pipe(Effect.provide(Layer.provideMerge(ReadingAdapter, AkmTest))))
  it.effect("a moved root is read again even when every file is stat-equal", () => movedRoot.pipe(Effect.provide(IndexStoreSqlite), Effect.provide(AkmTest)))
  it.scoped("reads only changed items, and equals a full rescan (in-memory index)", () => scenario.pipe(Effect.provide(AkmTest)))
  it.scoped("reads only changed items, and equals a full rescan (index.db)", () => scenario.pipe(Effect.provide(IndexStoreSqlite), Effect.provide(AkmTest)))
})
