import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { bundleList } from "../../src/programs/bundle/list.js"
import { bundleRemove } from "../../src/programs/bundle/remove.js"
import { bundleShow } from "../../src/programs/bundle/show.js"
import { bundleUpdate } from "../../src/programs/bundle/update.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { search } from "../../src/programs/search.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { UsageLog } from "../../src/services/UsageLog.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { caller, failure, folder } from "./writeFixtures.js"
import { akmWithRemote, makeRemote, type FakeRemote } from "./fakeMaterializer.js"

// akm bundle add/update/remove over a scripted materializer (spec 02 §1, R-BUN-2, R-BUN-3).

const URL = "https://git.example.com/acme/kb.git"
const OTHER = "https://git.example.com/acme/other.git"

const v1 = { revision: "1111111111111111111111111111111111111111", files: { "guide.md": "# Guide\n\nThe first edition about caching.\n" } }
const v2 = { revision: "2222222222222222222222222222222222222222", files: { "guide.md": "# Guide\n\nThe second edition.\n", "runbook.md": "# Runbook\n\nRestart the flux capacitor.\n" } }

/** Runs with a fresh scripted upstream and the test clock at the real time (add stamps real time). */
const withRemote = <A, E, R>(body: (remote: FakeRemote) => Effect.Effect<A, E, R>) => {
  const remote = makeRemote()
  return Effect.gen(function* () {
    yield* TestClock.setTime(Date.now())
    return yield* body(remote)
  }).pipe(Effect.provide(akmWithRemote(remote)))
}

const refs = (query: string) => Effect.map(search({ query, track: false }), (r) => r.hits.map((h) => h.ref))
const lockOf = (name: string) => Effect.flatMap(WorkspaceConfig, (w) => Effect.map(w.readLock, (l) => l.bundles[name]))

describe("bundle update", () => {
  it.effect("a new revision is recorded, reindexed and the old cache revision pruned", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        const added = yield* bundleAdd({ source: URL, name: "team", ...caller })
        expect(added).toMatchObject({ name: "team", revision: v1.revision, writable: false, items: 1, warnings: [] })
        const oldRoot = added.root!
        remote.upstream.set(URL, v2)

        const result = yield* bundleUpdate({ name: "team" })
        expect(result).toMatchObject({ ok: true, upToDate: [], failed: [], updated: [{ name: "team", from: v1.revision, to: v2.revision, items: 2 }] })
        const locked = (yield* lockOf("team"))!
        expect(locked.revision).toBe(v2.revision)
        expect(locked.root).not.toBe(oldRoot)
        expect(locked.installedAt).toBe(added.installedAt)
        expect(locked.stale).toBeUndefined()
        expect(fs.existsSync(oldRoot)).toBe(false)
        expect(fs.existsSync(locked.root)).toBe(true)
        expect(remote.calls.find((c) => c.op === "materialize" && c.options?.previous !== undefined)?.options?.previous?.revision).toBe(v1.revision)
        expect(remote.calls.filter((c) => c.op === "prune").map((c) => c.keep)).toEqual([locked.root])
        expect(yield* refs("flux capacitor")).toEqual(["team//runbook"])
      })))

  it.effect("an unchanged revision is up to date: no reindex of new bytes, no prune, updatedAt refreshed", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        yield* bundleAdd({ source: URL, name: "team", ...caller })
        const before = (yield* lockOf("team"))!
        yield* TestClock.adjust("1 hour")
        const result = yield* bundleUpdate({ name: "team" })
        expect(result).toMatchObject({ ok: true, updated: [], upToDate: [{ name: "team", revision: v1.revision }] })
        const after = (yield* lockOf("team"))!
        expect(after.root).toBe(before.root)
        expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt))
        expect(remote.calls.filter((c) => c.op === "prune")).toEqual([])
      })))

  it.effect("--force re-fetches the same revision and reindexes it", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        yield* bundleAdd({ source: URL, name: "team", ...caller })
        const result = yield* bundleUpdate({ name: "team", force: true })
        expect(result.updated).toMatchObject([{ name: "team", from: v1.revision, to: v1.revision }])
        expect(remote.calls.filter((c) => c.op === "materialize").at(-1)?.options?.force).toBe(true)
      })))

  it.effect("R-BUN-2: a failed update keeps the last good revision indexed and searchable, marks it stale, and a later success clears it", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        const added = yield* bundleAdd({ source: URL, name: "team", ...caller })
        yield* indexBundles({})
        remote.upstream.set(URL, { fail: "connection refused" })

        const first = yield* bundleUpdate({ name: "team" })
        expect(first).toMatchObject({ ok: false, updated: [], upToDate: [], failed: [{ name: "team", reason: "connection refused", kept: v1.revision }] })
        const stale = (yield* lockOf("team"))!
        expect(stale).toMatchObject({ revision: v1.revision, root: added.root, stale: { reason: "connection refused" } })
        expect(fs.existsSync(added.root!)).toBe(true)
        expect(yield* refs("caching")).toEqual(["team//guide"])
        const state = (yield* (yield* IndexStore).bundles).find((b) => b.bundle === "team")
        expect(state?.staleReason).toContain("connection refused")
        expect(yield* bundleShow("team")).toMatchObject({ revision: v1.revision, stale: { since: stale.stale!.since, reason: "connection refused" } })
        const searched = yield* search({ query: "caching", track: false })
        expect(searched.stale).toContain("team")
        // A later index run rescans the kept revision cleanly, and search still says the bundle is stale.
        yield* indexBundles({})
        expect((yield* search({ query: "caching", track: false })).stale).toContain("team")
        expect((yield* (yield* IndexStore).bundles).find((b) => b.bundle === "team")?.staleReason).toContain("last update failed: connection refused")

        // A second failure keeps the first `since`.
        yield* TestClock.adjust("2 hours")
        remote.upstream.set(URL, { fail: "timed out" })
        yield* bundleUpdate({ name: "team" })
        expect((yield* lockOf("team"))!.stale).toEqual({ since: stale.stale!.since, reason: "timed out" })

        remote.upstream.set(URL, v1)
        const healed = yield* bundleUpdate({ name: "team" })
        expect(healed.upToDate).toMatchObject([{ name: "team" }])
        expect((yield* lockOf("team"))!.stale).toBeUndefined()
        expect((yield* bundleShow("team")).stale).toBeUndefined()
      })))

  it.effect("a new revision that cannot be indexed is rolled back: the last good one stays in the lock, the index and the cache", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        const added = yield* bundleAdd({ source: URL, name: "team", ...caller })
        yield* indexBundles({})
        remote.upstream.set(URL, { revision: "3333333333333333333333333333333333333333", files: {}, brokenRoot: true })
        const result = yield* bundleUpdate({ name: "team" })
        expect(result.failed).toMatchObject([{ name: "team", reason: expect.stringContaining("could not be indexed"), kept: v1.revision }])
        expect(yield* lockOf("team")).toMatchObject({ revision: v1.revision, root: added.root, stale: { reason: expect.stringContaining("could not be indexed") } })
        expect(fs.readdirSync(path.dirname(added.root!))).toEqual([path.basename(added.root!)])
        expect(yield* refs("caching")).toEqual(["team//guide"])
      })))

  it.effect("--all carries on after a failure and reports each bundle", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        remote.upstream.set(OTHER, v1)
        yield* bundleAdd({ source: URL, name: "team", ...caller })
        yield* bundleAdd({ source: OTHER, name: "other", ...caller })
        const notes = folder({ "a.md": "# A\n" })
        yield* bundleAdd({ source: notes, name: "notes", ...caller })
        remote.upstream.set(URL, { fail: "repository not found" })
        remote.upstream.set(OTHER, v2)
        const result = yield* bundleUpdate({ all: true })
        expect(result.ok).toBe(false)
        expect(result.failed).toEqual([{ name: "team", reason: "repository not found", hint: "check the source", kept: v1.revision }])
        expect(result.updated.map((u) => u.name)).toEqual(["other"])
        expect(result.upToDate.map((u) => u.name)).toEqual(["notes"])
      })))

  it.effect("a folder is re-checked and reindexed: edits count as updated, a vanished folder fails and keeps its rows", () =>
    withRemote(() =>
      Effect.gen(function* () {
        const notes = folder({ "a.md": "# Alpha\n\nAbout alpacas.\n" })
        yield* bundleAdd({ source: notes, name: "notes", ...caller })
        expect((yield* bundleUpdate({ name: "notes" })).upToDate).toEqual([{ name: "notes", revision: null }])
        fs.writeFileSync(path.join(notes, "b.md"), "# Beta\n\nAbout bees.\n")
        const edited = yield* bundleUpdate({ name: "notes" })
        expect(edited.updated).toMatchObject([{ name: "notes", from: null, to: null, items: 2 }])
        expect(yield* refs("bees")).toEqual(["notes//b"])

        // Moved into a temp folder of its own, which the shared fixtures remove afterwards.
        const moved = path.join(folder(), "moved")
        fs.renameSync(notes, moved)
        const gone = yield* bundleUpdate({ name: "notes" })
        expect(gone.failed).toMatchObject([{ name: "notes", reason: "the folder does not exist", kept: null }])
        expect((yield* lockOf("notes"))!.stale?.reason).toBe("the folder does not exist")
        expect(yield* refs("alpacas")).toEqual(["notes//a"])
      })))

  it.effect("--due picks bundles whose refresh interval has elapsed; bundles without refresh are never due", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        remote.upstream.set(OTHER, v1)
        yield* bundleAdd({ source: URL, name: "hourly", refresh: "1h", ...caller })
        yield* bundleAdd({ source: OTHER, name: "daily", refresh: "1d", ...caller })
        yield* bundleAdd({ source: folder({ "a.md": "# A\n" }), name: "never", ...caller })
        expect((yield* (yield* WorkspaceConfig).read).bundles.hourly?.refresh).toBe("1h")

        const early = yield* bundleUpdate({ due: true })
        expect([early.updated, early.upToDate, early.failed]).toEqual([[], [], []])
        expect(early.notDue.map((n) => n.name)).toEqual(["hourly", "daily"])

        yield* TestClock.adjust("61 minutes")
        remote.upstream.set(URL, v2)
        const due = yield* bundleUpdate({ due: true })
        expect(due.updated.map((u) => u.name)).toEqual(["hourly"])
        expect(due.notDue.map((n) => n.name)).toEqual(["daily"])

        // Counted from the last successful update: not due again for an hour.
        const again = yield* bundleUpdate({ due: true })
        expect(again.updated).toEqual([])
        expect(again.notDue.map((n) => n.name)).toEqual(["hourly", "daily"])
        expect(remote.calls.filter((c) => c.op === "materialize" && c.bundle === "never")).toHaveLength(1)
      })))

  it.effect("selection: no name and no flag is a usage error; contradictions too; an unknown name is not found", () =>
    withRemote(() =>
      Effect.gen(function* () {
        expect(failure(yield* Effect.exit(bundleUpdate({})))._tag).toBe("UsageError")
        expect(failure(yield* Effect.exit(bundleUpdate({ name: "x", all: true })))._tag).toBe("UsageError")
        expect(failure(yield* Effect.exit(bundleUpdate({ all: true, due: true })))._tag).toBe("UsageError")
        expect(failure(yield* Effect.exit(bundleUpdate({ name: "ghost" })))._tag).toBe("NotFound")
        expect(yield* bundleUpdate({ all: true })).toEqual({ updated: [], upToDate: [], failed: [], notDue: [], ok: true })
      })))

  it.effect("a bundle written into config.yaml by hand is installed by its first update", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        const workspace = yield* WorkspaceConfig
        yield* workspace.update((editor) => editor.set(["bundles", "team"], { source: { kind: "git", url: URL } }))
        expect((yield* bundleList()).bundles[0]?.stale?.since).toBe("never installed")
        const result = yield* bundleUpdate({ name: "team" })
        expect(result.updated).toMatchObject([{ name: "team", from: null, to: v1.revision, items: 1 }])
        expect(yield* bundleShow("team")).toMatchObject({ adapter: "okf", revision: v1.revision })
        expect((yield* bundleShow("team")).stale).toBeUndefined()
      })))
})

describe("bundle add over a materializer", () => {
  it.effect("the materializer's diagnostics are returned as warnings; a partial snapshot is shown", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        const diagnostics = [{ code: "symlink-escapes", message: "skipped a symlink that leaves the tree", path: "docs/evil" }]
        remote.upstream.set(URL, { ...v1, diagnostics, partial: true })
        const added = yield* bundleAdd({ source: URL, name: "team", ...caller })
        expect(added.warnings).toEqual(diagnostics)
        expect(added.partial).toBe(true)
        expect((yield* bundleList()).bundles[0]).toMatchObject({ name: "team", partial: true })
      })))

  it.effect("a failure after materializing discards the cache copy (never a folder)", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        const workspace = yield* WorkspaceConfig
        expect(failure(yield* Effect.exit(bundleAdd({ source: URL, name: "team", adapter: "nope", ...caller })))._tag).toBe("UsageError")
        expect(remote.calls.map((c) => c.op)).toEqual(["materialize", "discard"])
        expect(fs.existsSync(path.join(workspace.paths.sourcesDir, "team"))).toBe(false)
        expect((yield* workspace.read).bundles).toEqual({})
        expect((yield* workspace.readLock).bundles).toEqual({})

        const notes = folder({ "keep.md": "# Keep\n" })
        yield* bundleAdd({ source: notes, name: "notes", ...caller })
        expect(failure(yield* Effect.exit(bundleAdd({ source: notes, name: "twin", ...caller })))._tag).toBe("Conflict")
        expect(remote.calls.filter((c) => c.op === "discard")).toHaveLength(1)
        expect(fs.readFileSync(path.join(notes, "keep.md"), "utf8")).toBe("# Keep\n")
      })))

  it.effect("flags: --refresh is validated and recorded; --ref/--allow-insecure only where they apply; a git copy is never writable", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        expect(failure(yield* Effect.exit(bundleAdd({ source: URL, refresh: "soon", ...caller })))._tag).toBe("UsageError")
        expect(failure(yield* Effect.exit(bundleAdd({ source: folder({}), ref: "main", ...caller })))._tag).toBe("UsageError")
        expect(failure(yield* Effect.exit(bundleAdd({ source: URL, allowInsecure: true, ...caller })))._tag).toBe("UsageError")
        expect(failure(yield* Effect.exit(bundleAdd({ source: URL, writable: true, ...caller }))).hint).toContain("without --git")
        expect(failure(yield* Effect.exit(bundleAdd({ source: "http://docs.example.com/", website: true, ...caller })))._tag).toBe("UsageError")
        expect(remote.calls).toEqual([])
        remote.upstream.set("http://docs.example.com/", { revision: "snap-1", files: { "index.md": "# Docs\n" } })
        const site = yield* bundleAdd({ source: "http://docs.example.com/", website: true, allowInsecure: true, refresh: "12h", ...caller })
        expect(site).toMatchObject({ name: "docs-example-com", source: { kind: "website", url: "http://docs.example.com/", allowInsecure: true }, refresh: "12h", writable: false })
      })))
})

describe("bundle remove", () => {
  it.effect("R-BUN-3: the cache copy goes, learned state stays and comes back when the bundle is added again", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        const added = yield* bundleAdd({ source: URL, name: "team", ...caller })
        const usage = yield* UsageLog
        yield* usage.recordFeedback({ ref: "team//guide", polarity: "positive", source: "user" })
        yield* usage.recordShow("team//guide", "user")
        const removed = yield* bundleRemove("team")
        expect(removed).toMatchObject({ removed: true, keptFolder: null, removedItems: 1 })
        expect(fs.existsSync(added.root!)).toBe(false)
        expect(remote.calls.filter((c) => c.op === "discard")).toHaveLength(1)
        expect(yield* refs("caching")).toEqual([])

        yield* bundleAdd({ source: URL, name: "team", ...caller })
        expect((yield* usage.feedback({ ref: "team//guide" })).map((f) => f.polarity)).toEqual(["positive"])
        expect((yield* usage.events({ ref: "team//guide" })).length).toBeGreaterThan(0)
        expect(yield* usage.utility("team//guide")).toBeDefined()
      })))

  it.effect("a folder bundle is never discarded", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        const notes = folder({ "keep.md": "# Keep\n" })
        yield* bundleAdd({ source: notes, name: "notes", ...caller })
        yield* bundleRemove("notes")
        expect(remote.calls.filter((c) => c.op === "discard")).toEqual([])
        expect(fs.readFileSync(path.join(notes, "keep.md"), "utf8")).toBe("# Keep\n")
      })))
})
