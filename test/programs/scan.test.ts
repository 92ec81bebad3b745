import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer } from "effect"
import { afterAll } from "vitest"
import type { BundleAdapter, BundleInfo, ItemPlan } from "../../src/domain/Adapter.js"
import { BundleFilesNode } from "../../src/layers/fs/BundleFilesNode.js"
import { ItemProjectorInProcess } from "../../src/layers/projector/ItemProjectorWorkers.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { checkPlans, scanBundle, scanWith } from "../../src/programs/scan.js"
import type { BundleFiles } from "../../src/services/BundleFiles.js"
import type { ItemProjector } from "../../src/services/ItemProjector.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"

const made: Array<string> = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

const folder = (files: Record<string, string | Uint8Array>, name?: string) => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-scan-")))
  made.push(base)
  const dir = name === undefined ? base : path.join(base, name)
  fs.mkdirSync(dir, { recursive: true })
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), content)
  }
  return dir
}
const caller = { cwd: os.tmpdir(), home: os.tmpdir() }
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** Every file's bytes and mtime, to prove a scan wrote nothing (R-AD-7). */
const snapshot = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name)
      out[path.relative(root, abs)] = `${fs.lstatSync(abs).mtimeMs} ${entry.isFile() ? fs.readFileSync(abs).toString("base64") : "dir"}`
      if (entry.isDirectory()) visit(abs)
    }
  }
  visit(root)
  return out
}

const okfFiles = {
  "index.md": "# Platform\n\n* [Caching](notes/caching.md) - how we cache\n",
  "notes/caching.md": "---\ntype: guide\ntitle: HTTP caching\ndescription: How we cache\ntags: [http, Web_Perf]\n---\n# HTTP caching\n\nUse ETags. See [retries](retries.md).\n",
  "notes/retries.md": "---\ntype: runbook\n---\n# Retries\n\nBack off.\n"
}

describe("scanBundle", () => {
  it.effect("turns a configured bundle into IndexDocuments with refs, absolute paths, hashes and bytes", () =>
    Effect.gen(function* () {
      const dir = folder(okfFiles)
      yield* bundleAdd({ source: dir, name: "kb", ...caller })
      const scan = yield* scanBundle("kb")
      expect(scan).toMatchObject({ bundle: "kb", adapter: "okf", adapterVersion: "1", root: dir, writable: true, complete: true })
      expect(scan.files.map((f) => f.path)).toEqual(["index.md", "notes/caching.md", "notes/retries.md"])
      expect(scan.documents.map((d) => d.ref)).toEqual(["kb//notes/caching", "kb//notes/retries"])
      const caching = scan.documents[0]!
      expect(caching).toMatchObject({
        bundle: "kb",
        conceptId: "notes/caching",
        adapter: "okf",
        path: path.join(dir, "notes/caching.md"),
        files: [path.join(dir, "notes/caching.md")],
        hash: sha256(okfFiles["notes/caching.md"]),
        bytes: Buffer.byteLength(okfFiles["notes/caching.md"]),
        type: "guide",
        name: "HTTP caching",
        description: "How we cache"
      })
      expect(caching.tags).toEqual(expect.arrayContaining(["http", "Web_Perf"]))
    }).pipe(Effect.provide(AkmTest)))

  it.effect("is deterministic and never writes to the bundle (R-AD-2, R-AD-7)", () =>
    Effect.gen(function* () {
      const dir = folder({ ...okfFiles, "broken.md": "---\ntype: [\n---\nbody\n", "notes/untyped.md": "just text\n" })
      yield* bundleAdd({ source: dir, name: "kb", ...caller })
      const before = snapshot(dir)
      const first = yield* scanBundle("kb")
      const second = yield* scanBundle("kb")
      expect(second).toEqual(first)
      expect(snapshot(dir)).toEqual(before)
      expect(first.diagnostics.map((d) => `${d.code} ${d.path}`)).toContain("invalid-frontmatter broken.md")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("refuses an unknown bundle and an unknown configured adapter", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.exit(scanBundle("nope"))
      expect(Exit.isFailure(missing) && missing.cause._tag === "Fail" && missing.cause.error._tag).toBe("NotFound")
      yield* bundleAdd({ source: folder(okfFiles), name: "kb", ...caller })
      yield* (yield* WorkspaceConfig).update((e) => e.set(["bundles", "kb", "adapter"], "no-such-adapter"))
      const unknown = yield* Effect.exit(scanBundle("kb"))
      expect(Exit.isFailure(unknown) && unknown.cause._tag === "Fail" && unknown.cause.error._tag).toBe("ConfigInvalid")
    }).pipe(Effect.provide(AkmTest)))
})

describe("bundle add picks the adapter by the ordered probes (R-WS-7)", () => {
  it.effect("a project with a .claude folder is recorded as claude", () =>
    Effect.gen(function* () {
      const dir = folder({ "CLAUDE.md": "# Project\n", ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\n---\nReview.\n", ".claude/settings.json": "{}" })
      const view = yield* bundleAdd({ source: dir, name: "proj", ...caller })
      expect(view.adapter).toBe("claude")
      expect((yield* (yield* WorkspaceConfig).read).bundles.proj?.adapter).toBe("claude")
      expect((yield* (yield* WorkspaceConfig).readLock).bundles.proj?.adapter.id).toBe("claude")
      const scan = yield* scanBundle("proj")
      expect(scan.documents.map((d) => d.conceptId)).toContain("CLAUDE")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a user's .claude folder itself is recorded as claude", () =>
    Effect.gen(function* () {
      const dir = folder({ "CLAUDE.md": "# Me\n", "agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\n---\nReview.\n", "commands/ship.md": "Ship it.\n", "settings.json": "{}" }, ".claude")
      expect((yield* bundleAdd({ source: dir, name: "home-claude", ...caller })).adapter).toBe("claude")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("a Claude Code plugin directory is recorded as claude", () =>
    Effect.gen(function* () {
      const dir = folder({ ".claude-plugin/plugin.json": "{\"name\":\"p\"}", "commands/deploy.md": "---\ndescription: Deploy\n---\nDeploy $ARGUMENTS\n" })
      expect((yield* bundleAdd({ source: dir, name: "plugin", ...caller })).adapter).toBe("claude")
    }).pipe(Effect.provide(AkmTest)))
})

// --- the core's own behaviour, with adapters written for the test ----------------------

const withFiles = <A, E>(effect: Effect.Effect<A, E, BundleFiles | ItemProjector>) => effect.pipe(Effect.provide(ItemProjectorInProcess.pipe(Layer.provideMerge(BundleFilesNode))))

const fakeAdapter = (overrides: Partial<BundleAdapter>): BundleAdapter => ({
  id: "fake",
  version: "1",
  writable: true,
  description: "test adapter",
  rules: [],
  probe: () => Effect.succeed(true),
  plan: (files) => ({ items: files.map((f) => ({ conceptId: f.path.replace(/\.[^.]+$/, ""), files: [f.path] })), diagnostics: [] }),
  project: (item, ctx) => Effect.map(ctx.readText(item.files[0]!), (text) => ({ projection: { name: text.trim() || item.conceptId }, diagnostics: [] })),
  ...overrides
})

const info = (root: string): BundleInfo => ({ name: "b", root, writable: true })

describe("scanWith: failure isolation (R-AD-8)", () => {
  it.effect("one item that dies, one unreadable file and one invalid projection are diagnostics; the rest is indexed", () =>
    withFiles(Effect.gen(function* () {
      const root = folder({ "good.md": "good", "dies.md": "x", "binary.md": new Uint8Array([0x00, 0x01]), "latin1.md": new Uint8Array([0xe9]), "nameless.md": "n" })
      const adapter = fakeAdapter({
        project: (item, ctx) => {
          if (item.conceptId === "dies") throw new Error("boom")
          if (item.conceptId === "nameless") return Effect.succeed({ projection: { name: 42 as unknown as string }, diagnostics: [] })
          return Effect.map(ctx.readText(item.files[0]!), (text) => ({ projection: { name: text }, diagnostics: [{ code: "seen", severity: "info" as const, path: item.files[0]!, message: "ok" }] }))
        }
      })
      const scan = yield* scanWith(info(root), adapter)
      expect(scan.complete).toBe(true)
      expect(scan.documents.map((d) => d.ref)).toEqual(["b//good"])
      expect(scan.diagnostics.map((d) => [d.code, d.severity, d.path, d.ref])).toEqual([
        ["invalid-encoding", "error", "binary.md", "b//binary"],
        ["adapter-failed", "error", "dies.md", "b//dies"],
        ["seen", "info", "good.md", "b//good"],
        ["invalid-encoding", "error", "latin1.md", "b//latin1"],
        ["adapter-failed", "error", "nameless.md", "b//nameless"]
      ])
      expect(scan.diagnostics.find((d) => d.path === "dies.md")?.message).toContain("boom")
    })))

  it.effect("a plan that dies fails the whole scan softly: no documents, complete false", () =>
    withFiles(Effect.gen(function* () {
      const root = folder({ "a.md": "a" })
      const scan = yield* scanWith(info(root), fakeAdapter({ plan: () => { throw new Error("plan boom") } }))
      expect(scan.complete).toBe(false)
      expect(scan.documents).toEqual([])
      expect(scan.diagnostics).toMatchObject([{ code: "adapter-failed", severity: "error", path: "." }])
    })))

  it.effect("whole-bundle checks run over the projected items; if they die the items stay", () =>
    withFiles(Effect.gen(function* () {
      const root = folder({ "a.md": "a", "b.md": "b" })
      let seen: ReadonlyArray<string> = []
      const ok = yield* scanWith(info(root), fakeAdapter({
        lintBundle: (_ctx, items) => {
          seen = items.map((i) => i.plan.conceptId)
          return Effect.succeed([{ code: "bundle-rule", severity: "warning", path: "a.md", message: "m" }])
        }
      }))
      expect(seen).toEqual(["a", "b"])
      expect(ok.diagnostics.map((d) => d.code)).toEqual(["bundle-rule"])
      const died = yield* scanWith(info(root), fakeAdapter({ lintBundle: () => Effect.die("lint boom") }))
      expect(died.documents).toHaveLength(2)
      expect(died.diagnostics).toMatchObject([{ code: "adapter-failed", path: "." }])
    })))

  it.effect("walk diagnostics are part of the scan", () =>
    withFiles(Effect.gen(function* () {
      const outside = folder({ "secret.md": "secret" })
      const root = folder({ "a.md": "a" })
      fs.symlinkSync(path.join(outside, "secret.md"), path.join(root, "escape.md"))
      const scan = yield* scanWith(info(root), fakeAdapter({}))
      expect(scan.documents.map((d) => d.conceptId)).toEqual(["a"])
      expect(scan.diagnostics).toMatchObject([{ code: "symlink-escape", path: "escape.md" }])
    })))
})

describe("checkPlans (R-REF-5)", () => {
  const plan = (conceptId: string, file: string): ItemPlan => ({ conceptId, files: [file] })

  it("keeps the adapter's first plan for a duplicated id and names both files", () => {
    const result = checkPlans("b", [plan("a", "a.md"), plan("a", "a.markdown"), plan("c", "c.md")])
    expect(result.kept.map((p) => p.files[0])).toEqual(["a.md", "c.md"])
    expect(result.diagnostics).toEqual([{
      code: "duplicate-concept-id",
      severity: "error",
      path: "a.markdown",
      ref: "b//a",
      message: "a.markdown and a.md both map to a; a.md is indexed, this file is not"
    }])
  })

  it("flags ids equal under case folding, keeping both", () => {
    const result = checkPlans("b", [plan("Notes/Readme", "Notes/Readme.md"), plan("notes/readme", "notes/readme.md")])
    expect(result.kept).toHaveLength(2)
    expect(result.diagnostics).toMatchObject([{ code: "case-collision", severity: "warning", path: "notes/readme.md" }])
  })

  it("drops ids that cannot be refs", () => {
    const result = checkPlans("b", [plan("../etc/passwd", "x.md"), plan("cafe\u0301", "y.md"), plan("a#b", "z.md"), plan("ok", "ok.md")])
    expect(result.kept.map((p) => p.conceptId)).toEqual(["ok"])
    expect(result.diagnostics.map((d) => [d.code, d.path])).toEqual([["invalid-concept-id", "x.md"], ["invalid-concept-id", "y.md"], ["invalid-concept-id", "z.md"]])
  })

  it("an end-to-end scan reports case twins from the file system", () =>
    Effect.runPromise(withFiles(Effect.gen(function* () {
      const root = folder({ "Note.md": "a", "note.md": "b" })
      const scan = yield* scanWith(info(root), fakeAdapter({}))
      expect(scan.documents.map((d) => d.conceptId)).toEqual(["Note", "note"])
      expect(scan.diagnostics).toMatchObject([{ code: "case-collision", path: "note.md" }])
    }))))
})
