import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { BundleAdapter } from "../../../src/domain/Adapter.js"
import { AdaptersBuiltIn, builtInRegistry, registryAdapters, selectAdapter, type AdapterRegistry } from "../../../src/layers/adapters/registry.js"
import { BundleFilesNode } from "../../../src/layers/fs/BundleFilesNode.js"
import { Adapters } from "../../../src/services/Adapters.js"
import { probeContextFromTree } from "../../support/adapterHarness.js"

/**
 * R-AD-6: the ordered selection of spec 03 §1.2 picks each golden root's own
 * adapter, the fallbacks apply when no probe matches, and no probe writes.
 */
const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const live = AdaptersBuiltIn.pipe(Layer.provide(BundleFilesNode))
const detect = (root: string) => Effect.runPromise(Effect.flatMap(Adapters, (a) => a.detect(root)).pipe(Effect.provide(live)))

/** Every entry under a root with its bytes (files), link target (symlinks) and mtime. */
const snapshot = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name)
      const stat = fs.lstatSync(abs)
      const content = entry.isSymbolicLink() ? `-> ${fs.readlinkSync(abs)}` : entry.isFile() ? fs.readFileSync(abs).toString("base64") : "dir"
      out[path.relative(root, abs)] = `${stat.mtimeMs} ${content}`
      if (entry.isDirectory()) visit(abs)
    }
  }
  visit(root)
  return out
}

const tempTree = (files: Record<string, string>): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "akm-select-"))
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  return root
}

const ids = registryAdapters(builtInRegistry).map((a) => a.id)

describe("adapter registry", () => {
  it("holds the twelve built-in adapters, each once, with the probes in spec order", () => {
    expect([...ids].sort()).toEqual(["agent-skills", "akm", "akm-task", "akm-workflow", "claude", "dotenv", "generic-files", "llm-wiki", "okf", "opencode", "project", "website-snapshot"])
    expect(builtInRegistry.probeOrder.map((a) => a.id)).toEqual([
      "project", "website-snapshot", "agent-skills", "claude", "opencode", "dotenv", "akm-workflow", "akm-task", "llm-wiki", "akm", "okf"
    ])
    expect(builtInRegistry.markdownFallback.id).toBe("okf")
    expect(builtInRegistry.otherFallback.id).toBe("generic-files")
  })

  it("lists, gets and returns adapters by id", () =>
    Effect.gen(function* () {
      const adapters = yield* Adapters
      expect(adapters.list.map((a) => a.id)).toEqual(ids)
      const okf = adapters.get("okf")
      expect(okf).toMatchObject({ id: "okf", version: "1" })
      expect(Object.keys(okf!).sort()).toEqual(["description", "id", "version", "writable"])
      expect(adapters.adapter("okf")?.plan).toBeTypeOf("function")
      expect(adapters.get("nope")).toBeUndefined()
      expect(adapters.adapter("nope")).toBeUndefined()
    }).pipe(Effect.provide(live), Effect.runPromise))
})

describe("selection goldens (R-AD-6)", () => {
  // A bare ~/.claude directory (settings.json, agents/, commands/, skills/, no CLAUDE.md) is claude, not akm.
  const roots = [...ids.map((id) => [id, id] as const), ["claude-plugin", "claude"] as const, ["claude-home", "claude"] as const]

  for (const [dir, expected] of roots) {
    it(`test/fixtures/adapters/${dir}/ is ${expected}`, async () => {
      const root = path.join(fixtures, dir)
      expect(fs.existsSync(root), `missing golden root ${root}`).toBe(true)
      expect((await detect(root)).id).toBe(expected)
    })
  }

  it("a project at a git repository root (rules/ + AGENTS.md) is project", async () => {
    const root = tempTree({ ".git/HEAD": "ref: refs/heads/main\n", "AGENTS.md": "# Agents\n", "rules/01-style.md": "---\ndescription: style\n---\nUse tabs.\n", "src/index.ts": "export {}\n" })
    try {
      expect((await detect(root)).id).toBe("project")
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("an embedding program gets the registry and the file layer from the public API", async () => {
    const api = await import("../../../src/index.js")
    const layer = api.AdaptersBuiltIn.pipe(Layer.provide(api.BundleFilesNode))
    const found = await Effect.runPromise(Effect.flatMap(Adapters, (a) => a.detect(path.join(fixtures, "claude-home"))).pipe(Effect.provide(layer)))
    expect(found.id).toBe("claude")
    expect(api.registryAdapters(api.builtInRegistry).map((a) => a.id)).toEqual(ids)
    expect(api.makeAdapters(api.builtInRegistry, api.makeBundleFiles()).get("okf")).toEqual(api.adapterInfo(api.builtInRegistry.markdownFallback))
    expect(Effect.runSync(api.selectAdapter(api.builtInRegistry, probeContextFromTree({ "notes/a.md": "# a\n" }))).id).toBe("okf")
  })

  it("no probe writes: every golden root keeps its bytes and mtimes", async () => {
    const before = Object.fromEntries(roots.map(([dir]) => [dir, snapshot(path.join(fixtures, dir))]))
    for (const [dir] of roots) await detect(path.join(fixtures, dir))
    for (const [dir] of roots) expect(snapshot(path.join(fixtures, dir))).toEqual(before[dir])
  })
})

describe("fallbacks", () => {
  const cases: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
    ["plain markdown notes", { "notes/a.md": "# A\n\nplain note\n", "b.md": "b" }, "okf"],
    ["no markdown", { "data.csv": "a,b\n", "run.sh": "#!/bin/sh\n" }, "generic-files"],
    ["markdown only in a hidden folder", { ".github/ISSUE.md": "# x\n", "data.csv": "a\n" }, "generic-files"],
    ["an empty folder", {}, "generic-files"]
  ]
  for (const [label, files, expected] of cases) {
    it(`${label} → ${expected}`, async () => {
      const root = tempTree(files)
      try {
        expect((await detect(root)).id).toBe(expected)
      } finally {
        fs.rmSync(root, { recursive: true, force: true })
      }
    })
  }

  it("the earliest matching probe wins", () => {
    const tree = { ".ai/config.json": "{}", "pdf/SKILL.md": "---\nname: pdf\ndescription: d\n---\n", "index.md": "# i\n" }
    expect(Effect.runSync(selectAdapter(builtInRegistry, probeContextFromTree(tree))).id).toBe("project")
    const { [".ai/config.json"]: _project, ...skills } = tree
    expect(Effect.runSync(selectAdapter(builtInRegistry, probeContextFromTree(skills))).id).toBe("agent-skills")
  })

  it("a probe that dies counts as no match", () => {
    const fake = (id: string, probe: BundleAdapter["probe"]): BundleAdapter => ({ ...builtInRegistry.otherFallback, id, probe })
    const registry: AdapterRegistry = {
      probeOrder: [fake("broken", () => Effect.die(new Error("boom"))), fake("throws", () => { throw new Error("sync boom") }), fake("yes", () => Effect.succeed(true))],
      markdownFallback: fake("md", () => Effect.succeed(false)),
      otherFallback: fake("other", () => Effect.succeed(false))
    }
    expect(Effect.runSync(selectAdapter(registry, probeContextFromTree({}))).id).toBe("yes")
  })
})
