import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { renameCache } from "../../src/layers/materializers/CacheSources.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { bundleRename } from "../../src/programs/bundle/rename.js"
import { bundleShow } from "../../src/programs/bundle/show.js"
import { bundleUpdate } from "../../src/programs/bundle/update.js"
import { feedback } from "../../src/programs/feedback.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { remember } from "../../src/programs/remember.js"
import { search } from "../../src/programs/search.js"
import { show } from "../../src/programs/show.js"
import { IndexStore } from "../../src/services/IndexStore.js"
import { ProposalStore } from "../../src/services/ProposalStore.js"
import { StateStore } from "../../src/services/StateStore.js"
import { UsageLog } from "../../src/services/UsageLog.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { akmWithRemote, makeRemote, type FakeRemote } from "./fakeMaterializer.js"
import { caller, failure, folder } from "./writeFixtures.js"

// akm bundle rename (R-REF-6): refs in state.db, index.db, the cache copy, lock and config move to the new name.

const URL = "https://git.example.com/acme/kb.git"
const v1 = { revision: "1111111111111111111111111111111111111111", files: { "guide.md": "# Guide\n\nHow we cache things.\n" } }

const withRemote = <A, E, R>(body: (remote: FakeRemote) => Effect.Effect<A, E, R>) => {
  const remote = makeRemote()
  return body(remote).pipe(Effect.provide(akmWithRemote(remote)))
}
const refs = (query: string) => Effect.map(search({ query, track: false }), (r) => r.hits.map((h) => h.ref))

describe("bundle rename", () => {
  it.effect("search, show and feedback work by the new ref; learned state, proposals and events moved; the old name is gone", () =>
    withRemote(() =>
      Effect.gen(function* () {
        const notes = folder({ "guide.md": "---\ntitle: Guide\n---\n# Guide\n\nHow we deploy on Fridays.\n" })
        yield* bundleAdd({ source: notes, name: "notes", ...caller })
        yield* bundleAdd({ source: folder({ "other.md": "# Other\n" }), name: "other", ...caller })
        yield* indexBundles({})
        yield* feedback({ ref: "notes//guide", polarity: "negative", reason: "steps are outdated", source: "user" })
        yield* show({ ref: "notes//guide" })
        const remembered = yield* remember({ text: "Deploys freeze on Fridays", bundle: "notes" })
        const usage = yield* UsageLog
        const utilityBefore = yield* usage.utility("notes//guide")

        const renamed = yield* bundleRename("notes", "kb")
        expect(renamed).toMatchObject({ from: "notes", to: "kb", root: notes, defaultBundle: "kb" })
        expect(yield* usage.utility("kb//guide")).toBe(utilityBefore)
        expect(yield* usage.utility("notes//guide")).toBeUndefined()

        const workspace = yield* WorkspaceConfig
        const config = yield* workspace.read
        expect(Object.keys(config.bundles)).toEqual(["kb", "other"])
        expect(config.defaultBundle).toBe("kb")
        expect(Object.keys((yield* workspace.readLock).bundles).sort()).toEqual(["kb", "other"])
        expect(failure(yield* Effect.exit(bundleShow("notes")))._tag).toBe("NotFound")
        expect(yield* bundleShow("kb")).toMatchObject({ name: "kb", root: notes, items: 2 })

        expect(yield* refs("deploy Fridays")).toContain("kb//guide")
        expect((yield* refs("deploy Fridays")).some((r) => r.startsWith("notes//"))).toBe(false)
        expect((yield* show({ ref: "kb//guide" })).ref).toBe("kb//guide")
        // The old name is no bundle any more: the error says so.
        expect(failure(yield* Effect.exit(show({ ref: "notes//guide" })))).toMatchObject({ _tag: "NotFound", message: "no bundle named 'notes'" })
        expect((yield* usage.feedback({ ref: "kb//guide" })).map((f) => f.reason)).toEqual(["steps are outdated"])
        expect(yield* usage.feedback({ ref: "notes//guide" })).toEqual([])
        yield* feedback({ ref: "kb//guide", polarity: "positive", source: "user" })
        expect(yield* usage.feedback({ ref: "kb//guide" })).toHaveLength(2)

        const proposals = yield* (yield* ProposalStore).list({ bundle: "kb" })
        expect(proposals.map((p) => p.id)).toContain(remembered.id)
        expect(yield* (yield* ProposalStore).list({ bundle: "notes" })).toEqual([])
        const index = yield* IndexStore
        expect(yield* index.resolve("notes//guide")).toBeUndefined()
        expect((yield* index.resolve("kb//guide"))?.bundle).toBe("kb")
        expect((yield* index.bundles).map((b) => b.bundle).sort()).toEqual(["kb", "other"])
        const events = yield* (yield* StateStore).events({ subject: "kb" })
        expect(events.map((e) => e.kind)).toEqual(["bundle.added", "bundle.renamed"])

        // A later index run keeps the new name (the manifest moved with the rows).
        const run = yield* indexBundles({})
        expect(run.removedBundles).toEqual([])
        expect(run.bundles.find((b) => b.bundle === "kb")?.status).toBe("unchanged")
      })))

  it.effect("a cached copy moves with the bundle and updates keep working under the new name", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        const added = yield* bundleAdd({ source: URL, name: "team", ...caller })
        const workspace = yield* WorkspaceConfig
        const renamed = yield* bundleRename("team", "kb")
        expect(renamed.root).toBe(path.join(workspace.paths.sourcesDir, "kb", v1.revision))
        expect(fs.existsSync(added.root!)).toBe(false)
        expect((yield* workspace.readLock).bundles.kb?.root).toBe(renamed.root)
        expect(yield* refs("cache things")).toEqual(["kb//guide"])
        expect((yield* bundleUpdate({ name: "kb" })).upToDate).toEqual([{ name: "kb", revision: v1.revision }])
      })))

  it.effect("repeating a rename interrupted after the cache copy moved finishes it", () =>
    withRemote((remote) =>
      Effect.gen(function* () {
        remote.upstream.set(URL, v1)
        const added = yield* bundleAdd({ source: URL, name: "team", ...caller })
        const workspace = yield* WorkspaceConfig
        // The crash: the cache copy moved, nothing else did.
        const moved = renameCache(workspace.paths.sourcesDir, "team", "kb", added.root!)
        expect(fs.existsSync(moved)).toBe(true)
        const renamed = yield* bundleRename("team", "kb")
        expect(renamed.root).toBe(moved)
        expect((yield* workspace.readLock).bundles.kb?.root).toBe(moved)
        expect(yield* refs("cache things")).toEqual(["kb//guide"])
      })))

  it.effect("config.yaml keeps its comments and the bundle's place", () =>
    withRemote(() =>
      Effect.gen(function* () {
        yield* bundleAdd({ source: folder({ "a.md": "# A\n" }), name: "first", ...caller })
        yield* bundleAdd({ source: folder({ "b.md": "# B\n" }), name: "second", ...caller })
        const workspace = yield* WorkspaceConfig
        const file = workspace.paths.configFile
        fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/^(\s+)first:/m, "$1# the team's notes\n$1first:"))
        yield* bundleRename("first", "team")
        const text = fs.readFileSync(file, "utf8")
        expect(text).toMatch(/# the team's notes\n\s+team:/)
        expect(text.indexOf("team:")).toBeLessThan(text.indexOf("second:"))
        expect(text).not.toContain("first")
      })))

  it.effect("refuses an unknown bundle, a taken or invalid new name, and the same name", () =>
    withRemote(() =>
      Effect.gen(function* () {
        yield* bundleAdd({ source: folder({ "a.md": "# A\n" }), name: "a", ...caller })
        yield* bundleAdd({ source: folder({ "b.md": "# B\n" }), name: "b", ...caller })
        expect(failure(yield* Effect.exit(bundleRename("ghost", "x")))._tag).toBe("NotFound")
        expect(failure(yield* Effect.exit(bundleRename("a", "b")))._tag).toBe("Conflict")
        expect(failure(yield* Effect.exit(bundleRename("a", "bad.name")))._tag).toBe("UsageError")
        expect(failure(yield* Effect.exit(bundleRename("a", "a")))._tag).toBe("UsageError")
        expect(Object.keys((yield* (yield* WorkspaceConfig).read).bundles)).toEqual(["a", "b"])
      })))
})
