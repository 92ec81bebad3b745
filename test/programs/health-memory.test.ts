import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as os from "node:os"
import { MEMORY_DEFAULTS } from "../../src/domain/MemoryPolicy.js"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { health } from "../../src/programs/health.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { folder, notesFiles, removeFolders } from "../support/indexedWorkspace.js"

// akm health reports each memory tier against the water marks (spec 04 §7, spec 06 §8.2).

afterAll(removeFolders)

const memory = (title: string) => `---\ndescription: ${title}\n---\n# ${title}\n\nThe staging database needs an allow-listed runner IP (${title}).\n`
const memoriesFiles: Record<string, string> = {
  "memories/runner-ip.md": memory("Runner IP"),
  "memories/deploy-window.md": memory("Deploy window"),
  "memories/flaky-test.md": memory("Flaky test"),
  "knowledge/guide.md": "# Guide\n\nNot a memory.\n"
}
const projectFiles: Record<string, string> = {
  "AGENTS.md": "# Agents\n\nRead the rules.\n",
  "memory/build.md": "# Build\n\nThe build needs Node 20 and a warm cache; a cold one takes ten minutes.\n"
}
const bytesOf = (files: Record<string, string>, dir: string) =>
  Object.entries(files).filter(([name]) => name.startsWith(dir)).reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0)

/** mem (akm, 3 memories), proj (project, 1 memory), notes (okf, none); all indexed. */
const workspace = Effect.gen(function* () {
  const caller = { cwd: os.tmpdir(), home: os.tmpdir() }
  yield* bundleAdd({ source: folder(memoriesFiles), name: "mem", adapter: "akm", ...caller })
  yield* bundleAdd({ source: folder(projectFiles), name: "proj", adapter: "project", ...caller })
  yield* bundleAdd({ source: folder(notesFiles), name: "notes", ...caller })
  yield* indexBundles({})
  return yield* WorkspaceConfig
})

const pressureOf = (result: { readonly attention: ReadonlyArray<{ readonly code: string; readonly bundle?: string | undefined }> }) =>
  result.attention.filter((a) => a.code === "memory-pressure").map((a) => a.bundle)

describe("health: memory tiers (spec 06 §8.2)", () => {
  it.effect("under the default water marks every tier is ok: sizes are reported per bundle with memories", () =>
    Effect.gen(function* () {
      yield* workspace
      const result = yield* health()
      expect(result.ok).toBe(true)
      const byBundle = Object.fromEntries(result.bundles.map((b) => [b.bundle, b.memory]))
      expect(byBundle).toEqual({
        mem: {
          items: 3,
          bytes: bytesOf(memoriesFiles, "memories/"),
          highWaterItems: MEMORY_DEFAULTS.highWaterItems,
          lowWaterItems: MEMORY_DEFAULTS.lowWaterItems,
          highWaterBytes: MEMORY_DEFAULTS.highWaterBytes,
          pressure: "ok"
        },
        proj: { items: 1, bytes: bytesOf(projectFiles, "memory/"), highWaterItems: 1000, lowWaterItems: 800, highWaterBytes: 52_428_800, pressure: "ok" },
        notes: null
      })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("more items than highWaterItems needs attention (exit 4) with the numbers and what to do; at the mark it is ok", () =>
    Effect.gen(function* () {
      const config = yield* workspace
      yield* config.update((editor) => editor.set(["memory"], { highWaterItems: 2, lowWaterItems: 1 }))
      const over = yield* health()
      expect(over.ok).toBe(false)
      expect(pressureOf(over)).toEqual(["mem"])
      expect(over.bundles.find((b) => b.bundle === "mem")!.memory).toMatchObject({ items: 3, highWaterItems: 2, lowWaterItems: 1, pressure: "high" })
      expect(over.bundles.find((b) => b.bundle === "proj")!.memory).toMatchObject({ items: 1, pressure: "ok" })
      const attention = over.attention.find((a) => a.code === "memory-pressure")!
      expect(attention.message).toMatch(/^bundle 'mem' holds 3 memory items \(\d+ bytes\), over memory\.highWaterItems \(2\): consolidation is required$/)
      expect(attention.hint).toContain("akm search mem// --type memory")
      // The lifecycle ships (issue 23): the hint names consolidation first, toward the low water mark.
      expect(attention.hint).toContain("akm memory consolidate --bundle mem")
      expect(attention.hint).toContain("down toward 1 item")
      expect(attention.hint).toContain("raise memory.highWaterItems")
      expect(attention.hint).toContain("akm config set memory.highWaterItems <n>")

      yield* config.update((editor) => editor.set(["memory", "highWaterItems"], 3))
      const at = yield* health()
      expect(pressureOf(at)).toEqual([])
      expect(at.ok).toBe(true)
    }).pipe(Effect.provide(AkmTest)))

  it.effect("more bytes than highWaterBytes needs attention too; a read-only bundle's hint says so", () =>
    Effect.gen(function* () {
      const config = yield* workspace
      yield* config.update((editor) => {
        editor.set(["memory"], { highWaterBytes: 50 })
        editor.set(["bundles", "proj", "writable"], false)
      })
      const result = yield* health()
      expect(result.ok).toBe(false)
      expect(pressureOf(result)).toEqual(["mem", "proj"])
      const [mem, proj] = result.attention.filter((a) => a.code === "memory-pressure")
      expect(mem!.message).toContain("over memory.highWaterBytes (50)")
      expect(mem!.message).not.toContain("highWaterItems")
      expect(mem!.hint).toContain("akm config set memory.highWaterBytes <n>")
      expect(proj!.message).toMatch(/^bundle 'proj' holds 1 memory item \(\d+ bytes\)/)
      expect(proj!.hint).toContain("read-only")
    }).pipe(Effect.provide(AkmTest)))
})
