import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { memoryArchiveAt } from "../../src/layers/fs/MemoryArchiveNode.js"
import { MemoryArchiveMemory } from "../../src/layers/memory/MemoryArchiveMemory.js"
import { MemoryStoreMemory } from "../../src/layers/sqlite/MemoryStoreSqlite.js"
import { MemoryArchive } from "../../src/services/MemoryArchive.js"
import { MemoryStore, type NewArchiveEntry } from "../../src/services/MemoryStore.js"

// The contract every MemoryArchive layer passes (spec 06 §8.5), and MemoryStore over state.db (migration 0011_memory).

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-archive-")))
const archives: ReadonlyArray<readonly [string, Layer.Layer<MemoryArchive>]> = [
  ["node", Layer.sync(MemoryArchive, () => memoryArchiveAt(path.join(dir, "archive")))],
  ["memory", MemoryArchiveMemory]
]

for (const [name, layer] of archives) {
  describe(`MemoryArchive contract: ${name}`, () => {
    it.effect("put is content-addressed and idempotent; read verifies; remove forgets", () =>
      Effect.gen(function* () {
        const archive = yield* MemoryArchive
        const bytes = new TextEncoder().encode(`a memory ${name}\n`)
        const first = yield* archive.put(bytes)
        expect(first.digest).toMatch(/^[0-9a-f]{64}$/)
        expect(yield* archive.put(bytes)).toEqual(first)
        expect(new TextDecoder().decode(yield* archive.read(first.digest))).toBe(`a memory ${name}\n`)
        expect(yield* archive.exists(first.digest)).toBe(true)
        yield* archive.remove(first.digest)
        expect(yield* archive.exists(first.digest)).toBe(false)
        expect(yield* archive.read(first.digest)).toBeUndefined()
      }).pipe(Effect.provide(layer)))
  })
}

describe("MemoryArchive on disk", () => {
  it.effect("files 0600, folders 0700; a damaged blob reads as missing", () =>
    Effect.gen(function* () {
      const root = path.join(dir, "perm")
      const archive = memoryArchiveAt(root)
      const { digest } = yield* archive.put(new TextEncoder().encode("secret-ish memory\n"))
      const file = path.join(root, "blobs", "sha256", digest.slice(0, 2), digest)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      for (const d of [root, path.join(root, "blobs"), path.join(root, "blobs", "sha256")]) expect(fs.statSync(d).mode & 0o777).toBe(0o700)
      fs.chmodSync(file, 0o600)
      fs.writeFileSync(file, "tampered")
      expect(yield* archive.read(digest)).toBeUndefined()
    }))
})

const entry = (ref: string, extra: Partial<NewArchiveEntry> = {}): NewArchiveEntry => ({
  bundle: ref.split("//")[0]!,
  ref,
  path: `${ref.split("//")[1]}.md`,
  digest: "a".repeat(64),
  bytes: 10,
  state: "retired",
  reason: "duplicate",
  successors: ["b//memories/keep"],
  dispositions: [{ claim: "A fact.", disposition: "in-successor", by: "b//memories/keep" }],
  proposalId: "p1",
  retiredAt: "2026-01-01T00:00:00.000Z",
  overlay: false,
  ...extra
})

describe("MemoryStore (state.db)", () => {
  it.effect("records, lists by bundle/ref/state, holds, restores, purges, renames", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const [a, b] = yield* store.record([entry("b//memories/x"), entry("b//memories/y", { overlay: true, state: "quarantined", reason: "invalid-derivative" })])
      expect(a).toMatchObject({ ref: "b//memories/x", hold: false, overlay: false, successors: ["b//memories/keep"], proposalId: "p1" })
      expect(b).toMatchObject({ overlay: true, state: "quarantined" })
      expect((yield* store.list({ bundle: "b", states: ["retired"] })).map((e) => e.ref)).toEqual(["b//memories/x"])
      yield* store.setHold(a!.id, true)
      expect((yield* store.list({ ref: "b//memories/x" }))[0]!.hold).toBe(true)
      yield* store.markRestored(b!.id, "2026-02-01T00:00:00.000Z", undefined)
      yield* store.markPurged([a!.id], "2026-03-01T00:00:00.000Z")
      expect((yield* store.list({})).map((e) => [e.ref, e.state])).toEqual([["b//memories/x", "purged"], ["b//memories/y", "restored"]])
      yield* store.renameBundle("b", "c")
      expect((yield* store.list({ bundle: "c" })).map((e) => e.ref)).toEqual(["c//memories/x", "c//memories/y"])
      expect((yield* store.list({ states: ["retired", "quarantined"] }))).toEqual([])
    }).pipe(Effect.provide(MemoryStoreMemory)))
})
