import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { bundleCreate } from "../../src/programs/bundle/create.js"
import { bundleList } from "../../src/programs/bundle/list.js"
import { bundleRemove } from "../../src/programs/bundle/remove.js"
import { bundleShow } from "../../src/programs/bundle/show.js"
import { StateStore } from "../../src/services/StateStore.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"

const made: Array<string> = []
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const folder = (files: Record<string, string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "akm-bundle-"))
  made.push(dir)
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  return dir
}
const caller = { cwd: os.tmpdir(), home: os.tmpdir() }
const failureTag = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) && exit.cause._tag === "Fail" ? (exit.cause.error as { _tag: string })._tag : undefined)

describe("bundle programs", () => {
  it.effect("add records config and lock, detects okf for markdown and becomes the default", () =>
    Effect.gen(function* () {
      const dir = folder({ "a/note.md": "# Note\n" })
      const view = yield* bundleAdd({ source: dir, ...caller })
      expect(view).toMatchObject({ name: path.basename(dir).toLowerCase(), adapter: "okf", writable: true, root: fs.realpathSync(dir), revision: null, items: 1, default: true })
      const workspace = yield* WorkspaceConfig
      const config = yield* workspace.read
      expect(config.defaultBundle).toBe(view.name)
      expect(config.bundles[view.name]).toMatchObject({ source: { kind: "filesystem", path: dir }, adapter: "okf" })
      const lock = yield* workspace.readLock
      expect(lock.bundles[view.name]).toMatchObject({ root: fs.realpathSync(dir), adapter: { id: "okf" }, revision: null })
      const events = yield* (yield* StateStore).events({ subject: view.name })
      expect(events.map((e) => e.kind)).toEqual(["bundle.added"])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a folder without markdown is generic-files; an explicit adapter wins and is persisted", () =>
    Effect.gen(function* () {
      const plain = yield* bundleAdd({ source: folder({ "data.csv": "a,b\n" }), name: "plain", ...caller })
      expect(plain.adapter).toBe("generic-files")
      const explicit = yield* bundleAdd({ source: folder({ "x.md": "# x\n" }), name: "mine", adapter: "akm", ...caller })
      expect(explicit.adapter).toBe("akm")
      expect((yield* (yield* WorkspaceConfig).read).bundles.mine?.adapter).toBe("akm")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("refuses bad names, duplicates, unknown adapters, missing folders and item refs", () =>
    Effect.gen(function* () {
      const dir = folder({ "x.md": "x" })
      expect(failureTag(yield* Effect.exit(bundleAdd({ source: dir, name: "bad.name", ...caller })))).toBe("UsageError")
      yield* bundleAdd({ source: dir, name: "one", ...caller })
      expect(failureTag(yield* Effect.exit(bundleAdd({ source: dir, name: "one", ...caller })))).toBe("Conflict")
      expect(failureTag(yield* Effect.exit(bundleAdd({ source: folder({ "y.md": "y" }), name: "two", adapter: "nope", ...caller })))).toBe("UsageError")
      expect(failureTag(yield* Effect.exit(bundleAdd({ source: dir, name: "again", ...caller })))).toBe("Conflict")
      expect(failureTag(yield* Effect.exit(bundleAdd({ source: path.join(dir, "missing"), name: "three", ...caller })))).toBe("MaterializeFailed")
      expect(failureTag(yield* Effect.exit(bundleAdd({ source: "notes//engineering/x", ...caller })))).toBe("UsageError")
      expect(failureTag(yield* Effect.exit(bundleAdd({ source: "npm:pkg", writable: true, ...caller })))).toBe("UsageError")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("refuses a bundle root that contains the workspace (R-WS-1)", () =>
    Effect.gen(function* () {
      const workspace = yield* WorkspaceConfig
      const root = path.dirname(workspace.paths.dataDir)
      fs.mkdirSync(root, { recursive: true })
      expect(failureTag(yield* Effect.exit(bundleAdd({ source: root, name: "outer", ...caller })))).toBe("WorkspaceUnavailable")
      expect(Object.keys((yield* workspace.read).bundles)).toEqual([])
    }).pipe(Effect.provide(AkmTest)))

  it.effect("create makes an empty writable akm bundle; --set-default switches the default", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: folder({ "x.md": "x" }), name: "first", ...caller })
      const created = yield* bundleCreate({ name: "scratch", setDefault: true, ...caller })
      expect(created).toMatchObject({ adapter: "akm", writable: true, default: true })
      expect(fs.readdirSync(created.root!)).toEqual([])
      const list = yield* bundleList()
      expect(list.bundles.map((b) => b.name)).toEqual(["first", "scratch"])
      expect(list.defaultBundle).toBe("scratch")
      const busy = folder({ "keep.md": "x" })
      expect(failureTag(yield* Effect.exit(bundleCreate({ name: "other", dir: busy, setDefault: false, ...caller })))).toBe("Conflict")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("remove forgets the bundle but keeps the user's folder", () =>
    Effect.gen(function* () {
      const dir = folder({ "keep.md": "precious" })
      yield* bundleAdd({ source: dir, name: "notes", ...caller })
      const removed = yield* bundleRemove("notes")
      expect(removed).toMatchObject({ name: "notes", removed: true, defaultCleared: true })
      expect(fs.readFileSync(path.join(dir, "keep.md"), "utf8")).toBe("precious")
      const workspace = yield* WorkspaceConfig
      expect((yield* workspace.read).bundles).toEqual({})
      expect((yield* workspace.read).defaultBundle).toBeUndefined()
      expect((yield* workspace.readLock).bundles).toEqual({})
      expect(failureTag(yield* Effect.exit(bundleShow("notes")))).toBe("NotFound")
      expect(failureTag(yield* Effect.exit(bundleRemove("notes")))).toBe("NotFound")
    }).pipe(Effect.provide(AkmTest)))
})
