import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Either } from "effect"
import { afterEach } from "vitest"
import { MAX_FILE_BYTES, makeBundleFiles } from "../../src/layers/fs/BundleFilesNode.js"
import type { Diagnostic } from "../../src/domain/Diagnostic.js"

const files = makeBundleFiles()
const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    fs.chmodSync(dir, 0o755)
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

/** A temp tree: path → text (or bytes); returns its real path. */
const tree = (entries: Record<string, string | Uint8Array> = {}): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-walk-")))
  dirs.push(root)
  for (const [rel, content] of Object.entries(entries)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  return root
}

const walk = (root: string, includeHidden = false) => Effect.runSync(files.walk(root, { includeHidden }))
const paths = (root: string, includeHidden = false) => walk(root, includeHidden).files.map((f) => f.path)
const codesAt = (diagnostics: ReadonlyArray<Diagnostic>) => diagnostics.map((d) => `${d.code} ${d.path}`).sort()
const sha256 = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex")

describe("BundleFilesNode.walk", () => {
  it("lists files sorted with POSIX paths, skipping .git, node_modules and hidden entries unless asked", () => {
    const root = tree({
      "b.md": "b",
      "a/z.md": "z",
      "a/c.txt": "c",
      ".git/config": "x",
      "node_modules/pkg/index.js": "x",
      ".claude/agents/x.md": "x",
      "sub/.hidden.md": "h"
    })
    expect(paths(root)).toEqual(["a/c.txt", "a/z.md", "b.md"])
    expect(paths(root, true)).toEqual([".claude/agents/x.md", "a/c.txt", "a/z.md", "b.md", "sub/.hidden.md"])
    const meta = walk(root).files[0]!
    expect(meta.size).toBe(1)
    expect(meta.mtimeMs).toBeGreaterThan(0)
  })

  it("honours the root .gitignore and nested ones, including negations and directory patterns", () => {
    const root = tree({
      ".gitignore": "build/\n*.log\n!keep.log\n",
      "build/out.md": "x",
      "a.log": "x",
      "keep.log": "k",
      "docs/.gitignore": "draft-*.md\n",
      "docs/draft-1.md": "x",
      "docs/final.md": "f",
      "other/draft-2.md": "d"
    })
    expect(paths(root)).toEqual(["docs/final.md", "keep.log", "other/draft-2.md"])
    expect(paths(root, true)).toEqual([".gitignore", "docs/.gitignore", "docs/final.md", "keep.log", "other/draft-2.md"])
  })

  it("follows symlinks inside the root, never one that escapes it (R-AD-4), and detects loops", () => {
    const outside = tree({ "secret.md": "secret" })
    const root = tree({ "real/a.md": "a" })
    fs.symlinkSync(path.join(root, "real/a.md"), path.join(root, "link.md"))
    fs.symlinkSync(path.join(root, "real"), path.join(root, "alias"))
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(root, "escape.md"))
    fs.symlinkSync(outside, path.join(root, "escape-dir"))
    fs.symlinkSync("..", path.join(root, "real/up"))
    fs.symlinkSync("self", path.join(root, "self"))
    fs.symlinkSync(path.join(root, "missing"), path.join(root, "dangling.md"))
    const result = walk(root)
    expect(result.files.map((f) => f.path)).toEqual(["alias/a.md", "link.md", "real/a.md"])
    expect(codesAt(result.diagnostics)).toEqual([
      "broken-symlink dangling.md",
      "symlink-escape escape-dir",
      "symlink-escape escape.md",
      "symlink-loop alias/up",
      "symlink-loop real/up",
      "symlink-loop self"
    ])
    expect(result.diagnostics.find((d) => d.code === "symlink-escape")?.severity).toBe("warning")
  })

  it("does not report links that .gitignore excludes", () => {
    const outside = tree({ "secret.md": "secret" })
    const root = tree({ ".gitignore": "vendor/\nlinked.md\n", "a.md": "a" })
    fs.symlinkSync(outside, path.join(root, "vendor"))
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(root, "linked.md"))
    expect(walk(root)).toEqual({ files: [expect.objectContaining({ path: "a.md" })], diagnostics: [] })
  })

  it("does not list files over 10 MiB (file-too-large)", () => {
    const root = tree({ "small.md": "s" })
    const big = path.join(root, "big.md")
    fs.writeFileSync(big, "")
    fs.truncateSync(big, MAX_FILE_BYTES + 1)
    const result = walk(root)
    expect(result.files.map((f) => f.path)).toEqual(["small.md"])
    expect(result.diagnostics).toMatchObject([{ code: "file-too-large", severity: "warning", path: "big.md" }])
  })

  it("normalises names to NFC and reports NFC/NFD twins as a case-collision", () => {
    const nfd = "cafe\u0301.md"
    const root = tree({ [nfd]: "nfd" })
    expect(paths(root)).toEqual(["caf\u00e9.md"])
    const ctx = files.context({ name: "b", root, writable: true }, walk(root).files)
    expect(Effect.runSync(ctx.readText("caf\u00e9.md"))).toBe("nfd")
    fs.writeFileSync(path.join(root, "caf\u00e9.md"), "nfc")
    const twins = walk(root)
    expect(twins.files.map((f) => f.path)).toEqual(["caf\u00e9.md"])
    expect(twins.diagnostics).toMatchObject([{ code: "case-collision", path: "caf\u00e9.md" }])
  })

  it("keeps names with spaces and newlines", () => {
    const root = tree({ "with space.md": "s", "new\nline.md": "n" })
    expect(paths(root).sort()).toEqual(["new\nline.md", "with space.md"])
  })

  it("skips special files and reports them", () => {
    const root = tree({ "a.md": "a" })
    const server = net.createServer()
    const socket = path.join(root, "s.sock")
    return new Promise<void>((done) => server.listen(socket, () => done())).then(() => {
      try {
        const result = walk(root)
        expect(result.files.map((f) => f.path)).toEqual(["a.md"])
        expect(result.diagnostics).toMatchObject([{ code: "special-file", severity: "info", path: "s.sock" }])
      } finally {
        server.close()
      }
    })
  })

  it.skipIf(process.getuid?.() === 0)("reports an unreadable directory and walks the rest", () => {
    const root = tree({ "a.md": "a", "locked/b.md": "b" })
    fs.chmodSync(path.join(root, "locked"), 0)
    try {
      const result = walk(root)
      expect(result.files.map((f) => f.path)).toEqual(["a.md"])
      expect(result.diagnostics).toMatchObject([{ code: "unreadable-directory", path: "locked" }])
    } finally {
      fs.chmodSync(path.join(root, "locked"), 0o755)
    }
  })

  it("fails with WorkspaceUnavailable for a missing root", () => {
    const result = Effect.runSync(Effect.either(files.walk(path.join(os.tmpdir(), "akm-no-such-root-x"), { includeHidden: false })))
    expect(Either.isLeft(result) && result.left._tag).toBe("WorkspaceUnavailable")
  })
})

describe("BundleFilesNode.context (R-AD-1)", () => {
  const read = (ctx: ReturnType<typeof files.context>, p: string) => Effect.runSync(Effect.either(ctx.readText(p)))

  it("reads UTF-8 text and refuses binary, invalid UTF-8, unknown and escaping paths", () => {
    const outside = tree({ "secret.md": "secret" })
    const root = tree({
      "ok.md": "\uFEFFhello",
      "bin.md": new Uint8Array([0x68, 0x00, 0x69]),
      "latin1.md": new Uint8Array([0x63, 0x61, 0x66, 0xe9])
    })
    const ctx = files.context({ name: "b", root, writable: true }, walk(root).files)
    expect(read(ctx, "ok.md")).toEqual(Either.right("\uFEFFhello"))
    expect(read(ctx, "bin.md")).toMatchObject({ left: { code: "binary", path: "bin.md" } })
    expect(read(ctx, "latin1.md")).toMatchObject({ left: { code: "invalid-encoding" } })
    expect(read(ctx, "missing.md")).toMatchObject({ left: { code: "missing" } })
    expect(read(ctx, `../${path.basename(outside)}/secret.md`)).toMatchObject({ left: { code: "missing" } })
    expect(read(ctx, path.join(outside, "secret.md"))).toMatchObject({ left: { code: "missing" } })
    expect(ctx.exists("ok.md")).toBe(true)
    expect(ctx.exists("../ok.md")).toBe(false)
  })

  it("refuses a listed file swapped for an escaping symlink after the walk", () => {
    const outside = tree({ "secret.md": "secret" })
    const root = tree({ "a.md": "a" })
    const ctx = files.context({ name: "b", root, writable: true }, walk(root).files)
    fs.rmSync(path.join(root, "a.md"))
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(root, "a.md"))
    expect(read(ctx, "a.md")).toMatchObject({ left: { code: "unreadable" } })
  })

  it("refuses files that grew past 10 MiB since the walk", () => {
    const root = tree({ "a.md": "a" })
    const ctx = files.context({ name: "b", root, writable: true }, walk(root).files)
    fs.truncateSync(path.join(root, "a.md"), MAX_FILE_BYTES + 1)
    expect(read(ctx, "a.md")).toMatchObject({ left: { code: "too-large" } })
  })

  it("overlays pending changes: new text, replaced text and deletes", () => {
    const root = tree({ "a.md": "old", "b.md": "b" })
    const ctx = files.context({ name: "b", root, writable: true }, walk(root).files, [
      { bundle: "b", path: "a.md", beforeHash: sha256("old"), after: "new" },
      { bundle: "b", path: "b.md", beforeHash: sha256("b"), delete: true },
      { bundle: "b", path: "c/d.md", beforeHash: null, after: "created" },
      { bundle: "b", path: "e.md", beforeHash: null, after: new Uint8Array([0xff]) }
    ])
    expect(ctx.files.map((f) => f.path)).toEqual(["a.md", "c/d.md", "e.md"])
    expect(read(ctx, "a.md")).toEqual(Either.right("new"))
    expect(read(ctx, "c/d.md")).toEqual(Either.right("created"))
    expect(read(ctx, "b.md")).toMatchObject({ left: { code: "missing" } })
    expect(read(ctx, "e.md")).toMatchObject({ left: { code: "invalid-encoding" } })
    expect(ctx.exists("b.md")).toBe(false)
    expect(fs.readFileSync(path.join(root, "a.md"), "utf8")).toBe("old")
  })

  it("looks files up in any listing it is given: out of order, a path twice, changes to one path in turn (decision 0057)", () => {
    const root = tree({ "a.md": "a", "b/c.md": "c", "b-d.md": "d" })
    const meta = (p: string, size: number, extra: { linkedTo?: string } = {}) => ({ path: p, size, mtimeMs: 1_000 + size, ...extra })
    // The last of a path's entries stands, as it always did; the context lists in path order ("b-d.md" before "b/c.md").
    const listing = [meta("b/c.md", 1), meta("a.md", 1), meta("b-d.md", 1, { linkedTo: "a.md" }), meta("a.md", 2)]
    const plain = files.context({ name: "b", root, writable: true }, listing)
    expect(plain.files).toEqual([meta("a.md", 2), meta("b-d.md", 1, { linkedTo: "a.md" }), meta("b/c.md", 1)])
    expect([plain.exists("a.md"), plain.exists("b/c.md"), plain.exists("b"), plain.exists("z.md")]).toEqual([true, true, false, false])
    expect(plain.linkTarget?.("b-d.md")).toBe("a.md")
    const walked = walk(root).files
    expect(files.context({ name: "b", root, writable: true }, walked).files).toEqual(walked)
    const ctx = files.context({ name: "b", root, writable: true }, walked, [
      { bundle: "b", path: "a.md", beforeHash: sha256("a"), delete: true },
      { bundle: "b", path: "a.md", beforeHash: null, after: "again" },
      { bundle: "b", path: "b/c.md", beforeHash: sha256("c"), after: "cc" },
      { bundle: "b", path: "b/c.md", beforeHash: sha256("cc"), delete: true },
      { bundle: "b", path: "0.md", beforeHash: null, after: "zero" },
      { bundle: "b", path: "b-d.md", beforeHash: sha256("d"), after: "dd" }
    ])
    const mtimeOf = (p: string) => walked.find((f) => f.path === p)!.mtimeMs
    // Written files carry their new size and the listed time (none for a file the listing did not have); a written link is a file.
    expect(ctx.files).toEqual([{ path: "0.md", size: 4, mtimeMs: 0 }, { path: "a.md", size: 5, mtimeMs: 0 }, { path: "b-d.md", size: 2, mtimeMs: mtimeOf("b-d.md") }])
    expect([ctx.exists("0.md"), ctx.exists("a.md"), ctx.exists("b/c.md")]).toEqual([true, true, false])
    expect(read(ctx, "a.md")).toEqual(Either.right("again"))
    expect(read(ctx, "b/c.md")).toMatchObject({ left: { code: "missing" } })
  })
})

describe("BundleFilesNode.probeContext (R-AD-6)", () => {
  it("sees entries, existence, directories and small texts inside the root only", () => {
    const outside = tree({ "secret.md": "secret" })
    const root = tree({ "CLAUDE.md": "# c", ".claude/agents/a.md": "a", "docs/x/y.md": "y", ".git/HEAD": "x" })
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(root, "escape.md"))
    fs.writeFileSync(path.join(root, "big.txt"), "x".repeat(1024 * 1024 + 1))
    const ctx = files.probeContext(root)
    expect(ctx.entries).toEqual([".claude/", "CLAUDE.md", "big.txt", "docs/"])
    const run = <A>(e: Effect.Effect<A>) => Effect.runSync(e)
    expect(run(ctx.exists(".claude/agents"))).toBe(true)
    expect(run(ctx.isDirectory(".claude/agents"))).toBe(true)
    expect(run(ctx.isDirectory("CLAUDE.md"))).toBe(false)
    expect(run(ctx.exists("escape.md"))).toBe(false)
    expect(run(ctx.exists("../"))).toBe(false)
    expect(run(ctx.readText("CLAUDE.md"))).toBe("# c")
    expect(run(ctx.readText("escape.md"))).toBeUndefined()
    expect(run(ctx.readText("big.txt"))).toBeUndefined()
    expect(run(ctx.find((p) => p.endsWith(".md")))).toEqual(["CLAUDE.md", ".claude/agents/a.md", "docs/x/y.md"])
    expect(run(ctx.find((p) => p.endsWith(".md"), 1))).toEqual(["CLAUDE.md"])
  })

  it("is empty for a missing root", () => {
    const ctx = files.probeContext(path.join(os.tmpdir(), "akm-no-such-root-y"))
    expect(ctx.entries).toEqual([])
    expect(Effect.runSync(ctx.find(() => true))).toEqual([])
  })
})

describe("BundleFilesNode.hash", () => {
  it("is the sha256 of the bytes for one file, and covers paths and sizes for several", () => {
    const root = tree({ "a.md": "ab", "b.md": "c", "c.md": "a", "d.md": "bc" })
    expect(Effect.runSync(files.hash(root, ["a.md"]))).toEqual({ hash: sha256("ab"), bytes: 2 })
    const first = Effect.runSync(files.hash(root, ["a.md", "b.md"]))
    const second = Effect.runSync(files.hash(root, ["c.md", "d.md"]))
    expect(first.bytes).toBe(3)
    expect(first.hash).not.toBe(second.hash)
    expect(Either.isLeft(Effect.runSync(Effect.either(files.hash(root, ["missing.md"]))))).toBe(true)
    expect(Either.isLeft(Effect.runSync(Effect.either(files.hash(root, ["../x"]))))).toBe(true)
  })
})
