import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileStampsNode } from "../../src/layers/fs/FileStampsNode.js"
import { FileStamps } from "../../src/services/FileStamps.js"
import { tempDir } from "./tempDir.js"

// FileStamps (the question batch's cache key, docs/decisions/0035-everything-cost.md): every change a derived value
// depends on moves the key — an edit, even of the same size, an added, removed or renamed file, the salt — and
// nothing else does.

describe("FileStampsNode", () => {
  it.scoped("the key moves on an edit (same size too), an added, removed or renamed file and the salt; it stays when nothing changed", () =>
    Effect.gen(function* () {
      const stamps = yield* FileStamps
      const root = yield* tempDir("stamps")
      fs.mkdirSync(path.join(root, "ledger", "failure"), { recursive: true })
      fs.writeFileSync(path.join(root, "ledger", "failure", "a.md"), "alpha\n")
      fs.writeFileSync(path.join(root, "config.json"), "{}")
      fs.writeFileSync(path.join(root, "other.md"), "not an input\n")
      const inputs = ["ledger", "config.json", "rules"]
      const key = () => Effect.map(stamps.stamp(root, inputs, "v1"), (s) => s.key)

      const first = yield* key()
      expect(yield* key()).toBe(first)
      fs.writeFileSync(path.join(root, "other.md"), "still not an input\n")
      expect(yield* key()).toBe(first)
      expect((yield* stamps.stamp(root, inputs, "v2")).key).not.toBe(first)

      fs.writeFileSync(path.join(root, "ledger", "failure", "a.md"), "alphA\n")
      const edited = yield* key()
      expect(edited).not.toBe(first)
      fs.writeFileSync(path.join(root, "ledger", "failure", "b.md"), "beta\n")
      const added = yield* key()
      expect(added).not.toBe(edited)
      fs.renameSync(path.join(root, "ledger", "failure", "b.md"), path.join(root, "ledger", "failure", "c.md"))
      const renamed = yield* key()
      expect(renamed).not.toBe(added)
      fs.rmSync(path.join(root, "ledger", "failure", "c.md"))
      expect(yield* key()).not.toBe(renamed)
      // A missing input is part of the key: creating it moves the key.
      const before = yield* key()
      fs.mkdirSync(path.join(root, "rules"))
      fs.writeFileSync(path.join(root, "rules", "01.md"), "# rule\n")
      expect(yield* key()).not.toBe(before)

      const { newest } = yield* stamps.stamp(root, inputs, "v1")
      expect(newest).toBeGreaterThan(Date.now() - 60_000)
      expect(newest).toBeLessThanOrEqual(Date.now() + 1_000)
    }).pipe(Effect.provide(FileStampsNode)))

  it.scoped("a symlink is stamped by its target and never walked into (a cycle does not hang it)", () =>
    Effect.gen(function* () {
      const stamps = yield* FileStamps
      const root = yield* tempDir("stamps-links")
      fs.mkdirSync(path.join(root, "ledger"))
      fs.writeFileSync(path.join(root, "target.md"), "one\n")
      fs.symlinkSync(path.join(root, "target.md"), path.join(root, "ledger", "link.md"))
      fs.symlinkSync(path.join(root, "ledger"), path.join(root, "ledger", "loop"))
      const first = (yield* stamps.stamp(root, ["ledger"], "")).key
      fs.writeFileSync(path.join(root, "target.md"), "two, longer\n")
      expect((yield* stamps.stamp(root, ["ledger"], "")).key).not.toBe(first)
    }).pipe(Effect.provide(FileStampsNode)))
})
