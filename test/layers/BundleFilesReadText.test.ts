import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import { tempDir } from "./tempDir.js"

// BundleFiles.readText: what `akm show` reads through (R-SHOW-1, R-AD-4).

const files = makeBundleFiles()
const code = (result: Either.Either<string, { readonly code: string }>) => (Either.isLeft(result) ? result.left.code : "ok")

describe("BundleFilesNode.readText", () => {
  it.scoped("reads a bundle-relative file's text; refuses what is missing, binary, escaping or not a path inside the root", () =>
    Effect.gen(function* () {
      const root = yield* tempDir("readtext")
      const outside = yield* tempDir("readtext-outside")
      fs.mkdirSync(path.join(root, "docs"))
      fs.writeFileSync(path.join(root, "docs", "a.md"), "# A\n")
      fs.writeFileSync(path.join(root, "blob.md"), Buffer.from([0x23, 0x00, 0x01]))
      fs.writeFileSync(path.join(outside, "secret.md"), "outside\n")
      fs.symlinkSync(path.join(outside, "secret.md"), path.join(root, "link.md"))
      fs.writeFileSync(path.join(root, "cafe\u0301.md"), "nfd name\n")

      expect(yield* files.readText(root, "docs/a.md")).toBe("# A\n")
      expect(yield* files.readText(root, "café.md")).toBe("nfd name\n")
      expect(code(yield* Effect.either(files.readText(root, "docs/missing.md")))).toBe("missing")
      expect(code(yield* Effect.either(files.readText(root, "blob.md")))).toBe("binary")
      const escaped = yield* Effect.either(files.readText(root, "link.md"))
      expect(code(escaped)).toBe("unreadable")
      expect(JSON.stringify(escaped)).not.toContain("outside\\n")
      for (const bad of ["../x.md", "/etc/passwd", "docs/../docs/a.md", ""]) expect(code(yield* Effect.either(files.readText(root, bad))), bad).toBe("unreadable")
      expect(code(yield* Effect.either(files.readText(path.join(root, "gone"), "a.md")))).toBe("missing")
    }))
})
