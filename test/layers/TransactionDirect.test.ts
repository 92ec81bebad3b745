import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Either } from "effect"
import { afterEach } from "vitest"
import type { FileChange } from "../../src/domain/FileChange.js"
import { TransactionDirect } from "../../src/layers/fs/TransactionDirect.js"
import { Transaction } from "../../src/services/Transaction.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const tree = (files: Record<string, string> = {}) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-txn-")))
  dirs.push(root)
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  return root
}
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")
const apply = (changes: ReadonlyArray<FileChange>, root: string) =>
  Effect.runSync(Effect.either(Effect.flatMap(Transaction, (t) => t.apply(changes, { root })).pipe(Effect.provide(TransactionDirect))))
const read = (root: string, rel: string) => fs.readFileSync(path.join(root, rel), "utf8")
const listing = (root: string) => fs.readdirSync(root, { recursive: true }).map(String).sort()

describe("TransactionDirect", () => {
  it("creates, updates and deletes in one set when every before-hash matches", () => {
    const root = tree({ "a.md": "old", "gone.md": "bye" })
    const result = apply([
      { bundle: "b", path: "a.md", beforeHash: sha256("old"), after: "new" },
      { bundle: "b", path: "new/dir/c.md", beforeHash: null, after: "created", mode: 0o600 },
      { bundle: "b", path: "gone.md", beforeHash: sha256("bye"), delete: true }
    ], root)
    expect(result).toEqual(Either.right({ applied: 3 }))
    expect(read(root, "a.md")).toBe("new")
    expect(read(root, "new/dir/c.md")).toBe("created")
    expect(fs.statSync(path.join(root, "new/dir/c.md")).mode & 0o777).toBe(0o600)
    expect(fs.existsSync(path.join(root, "gone.md"))).toBe(false)
    expect(listing(root)).toEqual(["a.md", "new", "new/dir", "new/dir/c.md"])
  })

  it("refuses the whole set when one before-hash is stale, writing nothing", () => {
    const root = tree({ "a.md": "a", "b.md": "b" })
    const result = apply([
      { bundle: "b", path: "a.md", beforeHash: sha256("a"), after: "A" },
      { bundle: "b", path: "b.md", beforeHash: sha256("stale"), after: "B" }
    ], root)
    expect(result).toMatchObject({ left: { _tag: "TransactionRefused", path: "b.md" } })
    expect([read(root, "a.md"), read(root, "b.md")]).toEqual(["a", "b"])
  })

  it("refuses creating a file that exists and changing one that does not", () => {
    const root = tree({ "a.md": "a" })
    expect(apply([{ bundle: "b", path: "a.md", beforeHash: null, after: "x" }], root)).toMatchObject({ left: { reason: "the file already exists" } })
    expect(apply([{ bundle: "b", path: "missing.md", beforeHash: sha256("x"), after: "y" }], root)).toMatchObject({ left: { reason: "the file no longer exists" } })
    expect(read(root, "a.md")).toBe("a")
  })

  it("refuses paths that escape the root, symbolic links on the way, and malformed change sets", () => {
    const outside = tree({ "target.md": "t" })
    const root = tree({ "a.md": "a" })
    fs.symlinkSync(outside, path.join(root, "linked"))
    fs.symlinkSync(path.join(outside, "target.md"), path.join(root, "link.md"))
    const refusals = [
      { bundle: "b", path: "../escape.md", beforeHash: null, after: "x" },
      { bundle: "b", path: "/etc/passwd", beforeHash: null, after: "x" },
      { bundle: "b", path: "linked/new.md", beforeHash: null, after: "x" },
      { bundle: "b", path: "link.md", beforeHash: sha256("t"), after: "x" },
      { bundle: "b", path: "a.md", beforeHash: sha256("a") },
      { bundle: "b", path: "a.md", beforeHash: sha256("a"), after: "x", delete: true as const }
    ]
    for (const change of refusals) expect(Either.isLeft(apply([change], root)), change.path).toBe(true)
    expect(Either.isLeft(apply([{ bundle: "b", path: "n.md", beforeHash: null, after: "1" }, { bundle: "b", path: "n.md", beforeHash: null, after: "2" }], root))).toBe(true)
    expect(listing(outside)).toEqual(["target.md"])
    expect(read(outside, "target.md")).toBe("t")
    expect(fs.readdirSync(root).sort()).toEqual(["a.md", "link.md", "linked"])
  })
})
