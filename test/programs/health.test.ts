import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { health } from "../../src/programs/health.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { ProposalStore } from "../../src/services/ProposalStore.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { folder, indexedWorkspace, notesFiles, removeFolders, skillsFiles } from "../support/indexedWorkspace.js"

afterAll(removeFolders)

const codes = (result: { readonly attention: ReadonlyArray<{ readonly code: string; readonly bundle?: string | undefined }> }) => result.attention.map((a) => [a.code, a.bundle])

describe("health (spec 04 §7)", () => {
  it.effect("an empty workspace is healthy", () =>
    Effect.gen(function* () {
      const result = yield* health()
      expect(result).toMatchObject({ ok: true, attention: [], bundles: [], index: { lastIndexed: null }, proposals: { pending: 0 } })
      expect(result.databases.map((d) => [d.name, d.bytes])).toEqual([["state.db", null], ["index.db", null], ["logs.db", null]])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("bundles that were never indexed need attention: the whole index, or one bundle", () =>
    Effect.gen(function* () {
      const workspace = yield* WorkspaceConfig
      const configure = (name: string) => workspace.update((config) => config.set(["bundles", name], { source: { kind: "filesystem", path: folder(notesFiles) } }))
      yield* configure("notes")
      const empty = yield* health()
      expect(empty.ok).toBe(false)
      expect(codes(empty)).toEqual([["index-missing", undefined]])
      expect(empty.bundles).toMatchObject([{ bundle: "notes", items: 0, indexedAt: null, stale: null, diagnostics: null }])
      yield* indexBundles({})
      expect(codes(yield* health())).toEqual([])
      yield* configure("later")
      expect(codes(yield* health())).toEqual([["not-indexed", "later"]])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("after indexing: items, index time, diagnostics by severity, database sizes", () =>
    Effect.gen(function* () {
      yield* indexedWorkspace({ notes: notesFiles, skills: skillsFiles })
      const result = yield* health()
      expect(codes(result)).toEqual([])
      expect(result.ok).toBe(true)
      expect(result.index.lastIndexed).not.toBeNull()
      expect(result.bundles.map((b) => [b.bundle, b.adapter, b.items, b.stale, b.refresh.overdue])).toEqual([
        ["notes", "okf", 2, null, false],
        ["skills", "agent-skills", 2, null, false]
      ])
      expect(result.bundles[0]!.indexedAt).toBe(result.index.lastIndexed)
      expect(result.bundles[0]!.diagnostics).toEqual({ error: 0, warning: expect.any(Number), info: expect.any(Number) })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("pending proposals are counted, not an attention item", () =>
    Effect.gen(function* () {
      const store = yield* ProposalStore
      const base = { title: "t", recipe: "manual", changeClass: "semantic" as const, evidence: [], fingerprint: "f", createdAt: "2026-01-01T00:00:00.000Z", changes: [{ bundle: "b", path: "a.md", beforeHash: null, after: "a" }] }
      yield* store.create({ ...base, status: "pending", id: "00000000-0000-4000-8000-000000000001" })
      yield* store.create({ ...base, status: "pending", id: "00000000-0000-4000-8000-000000000002" })
      const result = yield* health()
      expect(result.proposals).toEqual({ pending: 2 })
      expect(result.ok).toBe(true)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("stale rows, errors, overdue refreshes and orphaned rows each need attention", () =>
    Effect.gen(function* () {
      const roots = yield* indexedWorkspace({ notes: notesFiles, broken: { "x/SKILL.md": "---\nname: other\ndescription: A skill whose name does not match.\n---\n# X\n" }, gone: notesFiles })
      fs.rmSync(roots.gone!, { recursive: true, force: true })
      yield* indexBundles({})
      const workspace = yield* WorkspaceConfig
      yield* workspace.update((config) => config.set(["bundles", "notes", "refresh"], "1d"))
      yield* TestClock.setTime(Date.now() + 2 * 86_400_000)
      const result = yield* health()
      expect(result.ok).toBe(false)
      expect(codes(result)).toEqual([["refresh-overdue", "notes"], ["diagnostics", "broken"], ["stale", "gone"]])
      expect(result.bundles.find((b) => b.bundle === "gone")!.stale).toContain(path.basename(roots.gone!))

      yield* workspace.update((config) => config.delete(["bundles", "broken"]))
      expect(codes(yield* health())).toContainEqual(["orphaned", "broken"])
    }).pipe(Effect.provide(AkmTest)))
})
